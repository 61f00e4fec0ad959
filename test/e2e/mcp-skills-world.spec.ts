// A property of Skills over MCP (docs/mcp-skills.md#uris), checked over a generated world: for
// every caller, every resource a listing names (skills/list, resources/list, and the folders of
// resources/directory/read) reads back, by its URI, as bytes that hash to the digest and size the
// listing gave. The world is made to collide: groups nested three deep whose segments are also
// skill names and folder names, one skill name in a group, its parent and its subgroup, a skill
// of a parent holding a folder named like a subgroup's skill, personal and public twins, and a
// Developer of a subgroup publishing there. Every file's bytes name the skill they belong to, so
// a URI that reaches the wrong skill reads bytes with another digest. Generated from a fixed
// seed (MCP_WORLD_SEED overrides it), through the real app and the SDK's own client.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { listen } from '../support/raw-http';
import { Scenario } from '../support/scenario';
import { Caller, publishSkill } from '../support/skills';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

const ANY = z.looseObject({});
const SEED = Number(process.env.MCP_WORLD_SEED ?? 2640);
/** Names that are at once group segments, skill names and folder names. */
const NAMES = ['plat', 'deploy', 'scripts', 'data', 'run'];
const FOLDERS = ['plat', 'deploy', 'scripts', 'data'];
const LEAVES = ['run.sh', 'SKILL.md', 'notes.md', 'data.txt'];
/** Three deep, every segment also a skill name; `plat/deploy` is where the subgroup's Developer publishes. */
const GROUPS = ['plat', 'plat/deploy', 'plat/deploy/scripts', 'plat/data', 'run', 'run/plat'];

/** A small seeded generator (mulberry32): the same world for the same seed. */
function generator(seed: number): { int(n: number): number; pick<T>(items: readonly T[]): T } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (n) => Math.floor(next() * n), pick: (items) => items[Math.floor(next() * items.length)] };
}

interface Listed {
  uri: string;
  digest: string;
  size: number;
}

describe('Skills over MCP: every listed resource reads back as its digest, in a world of colliding names', () => {
  let t: TestApp;
  let port: number;
  const world = { skills: 0, files: 0 };
  const checked: Record<string, number> = {};
  const clients: Client[] = [];
  const callers: Array<[string, string]> = [];

  beforeAll(async () => {
    t = await startTestApp();
    const s = new Scenario(t);
    port = await listen(t);
    const random = generator(SEED);
    const [owner, reporter, developer, outsider, admin] = await Promise.all(
      ['owner', 'reporter', 'developer', 'outsider']
        .map((n) => createUser(t, n))
        .concat(createUser(t, 'root', 'admin')),
    );
    for (const group of GROUPS) {
      const members: Array<[TestUser, 'Reporter' | 'Developer']> = [];
      if (group === 'plat') members.push([reporter, 'Reporter']);
      if (group === 'plat/deploy') members.push([developer, 'Developer']);
      await s.group(owner, group, members);
    }

    /** Files whose paths reuse the names, each file's bytes naming its skill and path. */
    const filesFor = (scope: string, name: string, forced: string[]): Record<string, string> => {
      const files: Record<string, string> = {};
      const paths = [...forced];
      for (let i = random.int(4); i >= 0; i--) {
        const depth = random.int(3);
        const folders = Array.from({ length: depth }, () => random.pick(FOLDERS));
        paths.push([...folders, random.pick(LEAVES)].join('/'));
      }
      for (const path of paths) {
        if (path === 'SKILL.md') continue;
        files[path] = `${scope} ${name} ${path} ${random.int(1e9)}\n`;
      }
      return files;
    };
    const publish = async (caller: Caller, scope: string, name: string, forced: string[] = []): Promise<void> => {
      const fields: Record<string, string> =
        scope === 'public' ? { public: 'true' } : scope ? { namespace: scope } : {};
      const files = filesFor(scope || 'personal', name, forced);
      await publishSkill(t, caller, name, fields, {
        description: `${name} of ${scope || 'personal'}`,
        body: `# ${name}\n\n${scope} ${random.int(1e9)}\n`,
        files,
      });
      world.skills += 1;
      world.files += Object.keys(files).length + 1;
      if (scope === 'plat/deploy' || scope === 'public') forTask.add(name);
    };
    /** Names a task of plat/deploy can select: its group's skills and the public ones. */
    const forTask = new Set<string>();

    // The collisions, always there: the same name in a group, its parent and its subgroup; a
    // skill named like a subgroup with a folder named like that subgroup's skill (the old
    // nested-form URI skill://plat/deploy/scripts/run.sh named both); personal and public twins.
    await publish(owner, 'plat', 'deploy', ['scripts/run.sh', 'scripts/SKILL.md']);
    await publish(developer, 'plat/deploy', 'scripts', ['run.sh']);
    await publish(developer, 'plat/deploy', 'deploy', ['scripts/run.sh']);
    await publish(owner, 'plat/deploy/scripts', 'deploy', ['run.sh']);
    await publish(owner, 'plat/deploy/scripts', 'run', ['SKILL.md']);
    await publish(owner, 'run', 'plat', ['deploy/scripts/run.sh']);
    await publish(owner, 'run/plat', 'deploy', ['scripts/run.sh']);
    await publish(ADMIN_KEY, 'public', 'deploy', ['scripts/run.sh']);
    for (const user of [owner, reporter, outsider, admin]) await publish(user, '', 'deploy', ['scripts/run.sh']);
    // Then at random: more names in every scope, where each is still free.
    const taken = new Set(['plat deploy', 'plat/deploy scripts', 'plat/deploy deploy', 'plat/deploy/scripts deploy']);
    for (const key of ['plat/deploy/scripts run', 'run plat', 'run/plat deploy', 'public deploy']) taken.add(key);
    for (const user of [owner, reporter, outsider, admin]) taken.add(`${user.name} deploy`);
    const scopes: Array<[Caller, string, string]> = [
      ...GROUPS.map((g): [Caller, string, string] => [g === 'plat/deploy' ? developer : owner, g, g]),
      [ADMIN_KEY, 'public', 'public'],
      ...[owner, reporter, outsider, admin].map((u): [Caller, string, string] => [u, '', u.name]),
    ];
    for (let i = 0; i < 24; i++) {
      const [caller, scope, label] = random.pick(scopes);
      const name = random.pick(NAMES);
      if (taken.has(`${label} ${name}`)) continue;
      taken.add(`${label} ${name}`);
      await publish(caller, scope, name);
    }

    // A task token: a team in plat/deploy whose ghost lists every name it can select.
    const { team } = await s.teamWithGhost(owner, 'work', [...forTask].sort(), [], 'plat/deploy');
    const task = await s.task(owner, { team_id: team.id });
    const token: string = (await s.post(owner, `/api/tasks/${task.id}/tokens`, {})).token;
    callers.push(
      ['owner (Owner of every group)', owner.key],
      ['reporter (Reporter of plat)', reporter.key],
      ['developer (Developer of plat/deploy only)', developer.key],
      ['outsider (no role)', outsider.key],
      ['admin', admin.key],
      ['task token', token],
    );
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
    const total = Object.values(checked).reduce((a, b) => a + b, 0);
    process.stdout.write(
      `MCP world (seed ${SEED}): ${world.skills} skills, ${world.files} files; ${total} listed resources read back ` +
        `(${Object.entries(checked)
          .map(([who, n]) => `${who}: ${n}`)
          .join(', ')})\n`,
    );
  });

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'mcp-world-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`), {
        requestInit: { headers: as(key) },
      }),
    );
    clients.push(client);
    return client;
  }

  /** Everything a paged method lists, following nextCursor. */
  async function all(client: Client, method: string, field: string, params: object = {}): Promise<any[]> {
    const items: any[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page: any = await client.request({ method, params: { ...params, ...(cursor ? { cursor } : {}) } }, ANY);
      items.push(...page[field]);
      cursor = page.nextCursor;
      if (!cursor) return items;
    }
    throw new Error(`${method} did not end`);
  }

  const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

  async function read(client: Client, uri: string): Promise<Buffer> {
    const { contents }: any = await client.request({ method: 'resources/read', params: { uri } }, ANY);
    const [content] = contents;
    return typeof content.text === 'string' ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64');
  }

  it('reads back every resource listed to every caller with the listed digest and size', async () => {
    expect(callers).toHaveLength(6);
    for (const [who, key] of callers) {
      const client = await connect(key);
      const entries = await all(client, 'skills/list', 'skills');
      expect(entries.length).toBeGreaterThan(0);
      const listed = new Map<string, Listed>();
      for (const entry of entries) {
        for (const resource of entry.resources as Listed[]) {
          // No two files served share a URI.
          expect(listed.has(resource.uri)).toBe(false);
          listed.set(resource.uri, resource);
        }
      }
      const problems: string[] = [];
      let reads = 0;
      const expectListed = async (uri: string, size?: number): Promise<void> => {
        const expected = listed.get(uri);
        if (!expected) return void problems.push(`${uri} is not in skills/list`);
        const bytes = await read(client, uri);
        reads += 1;
        const got = { digest: sha256(bytes), size: bytes.length };
        if (got.digest !== expected.digest || got.size !== expected.size || (size !== undefined && size !== got.size)) {
          problems.push(`${uri}: listed ${expected.digest} (${expected.size} bytes), read ${got.digest} (${got.size})`);
        }
      };
      for (const uri of listed.keys()) await expectListed(uri);
      for (const resource of await all(client, 'resources/list', 'resources')) {
        await expectListed(resource.uri, resource.size);
      }
      // Every folder of every listed skill, from its root down.
      const folders: string[] = entries.map((e) => e.uri.replace(/\/SKILL\.md$/, ''));
      while (folders.length) {
        const folder = folders.pop()!;
        for (const child of await all(client, 'resources/directory/read', 'resources', { uri: folder })) {
          if (child.mimeType === 'inode/directory') folders.push(child.uri);
          else await expectListed(child.uri, child.size);
        }
      }
      checked[who] = reads;
      expect(problems).toEqual([]);
    }
  });
});
