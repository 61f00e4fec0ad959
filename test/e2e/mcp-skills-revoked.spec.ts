// Nothing of a revoked version over MCP (docs/mcp-skills.md#revoked-versions), through the SDK's
// own client: a skill whose latest version is revoked is served at the newest active or
// deprecated one by every method, and a skill whose versions are all yanked or revoked is not
// served at all, answered exactly as a URI that names nothing. For a user (Developer and admin
// alike) and for a task token.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { listen } from '../support/raw-http';
import { Scenario } from '../support/scenario';
import { publishSkill, publishVersion } from '../support/skills';
import { as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

const ANY = z.looseObject({});
const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('Skills over MCP: nothing of a revoked version', () => {
  let t: TestApp;
  let port: number;
  let alice: TestUser;
  let admin: TestUser;
  let token: string;
  let pinnedToken: string;
  const clients: Client[] = [];
  const V1 = { 'a.md': 'one\n', 'docs/guide.md': 'guide one\n' };
  const V2 = { 'a.md': 'two\n', 'only-v2/secret.md': 'revoked bytes\n' };

  beforeAll(async () => {
    t = await startTestApp();
    const s = new Scenario(t);
    port = await listen(t);
    alice = await createUser(t, 'alice');
    admin = await createUser(t, 'root', 'admin');
    await s.group(alice, 'lab');
    const publish = async (name: string, description: string, files: Record<string, string>) =>
      publishSkill(t, alice, name, { namespace: 'lab' }, { description, files });
    const version = async (id: number, name: string, description: string, files: Record<string, string>) => {
      const res = await publishVersion(t, alice, id, skillZip(name, { description, files }));
      expect(res.status).toBe(201);
    };
    const setStatus = async (id: number, v: number, status: string) => {
      const res = await t.http.patch(`/api/skills/${id}/versions/${v}`).set(as(alice.key)).send({ status });
      expect(res.status).toBe(200);
    };
    // `rev`: v1 active, v2 revoked. `gone`: v1 yanked, v2 revoked. `kept`: untouched, for contrast.
    const rev = await publish('rev', 'Version one.', V1);
    await version(rev.id, 'rev', 'Version two.', V2);
    const gone = await publish('gone', 'Gone one.', V1);
    await version(gone.id, 'gone', 'Gone two.', V2);
    await publish('kept', 'Kept.', {});
    // Tasks made while every version was active: one pinned to rev v2, one that follows every name.
    const pinned = await s.teamWithGhost(alice, 'pinned', ['rev'], [], 'lab', {
      rev: { skill_id: rev.id, version: 2 },
    });
    const pinnedTask = await s.task(alice, { team_id: pinned.team.id });
    pinnedToken = (await s.post(alice, `/api/tasks/${pinnedTask.id}/tokens`, {})).token;
    const { team } = await s.teamWithGhost(alice, 'work', ['rev', 'gone', 'kept'], [], 'lab');
    const task = await s.task(alice, { team_id: team.id });
    token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token;
    // Then the statuses change under them.
    await setStatus(rev.id, 2, 'revoked');
    await setStatus(gone.id, 1, 'yanked');
    await setStatus(gone.id, 2, 'revoked');
    await t.heard();
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'mcp-revoked-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`), {
        requestInit: { headers: as(key) },
      }),
    );
    clients.push(client);
    return client;
  }

  /** The result, or the JSON-RPC error's code and message. */
  async function call(client: Client, method: string, params: Record<string, unknown> = {}): Promise<any> {
    try {
      return await client.request({ method, params }, ANY);
    } catch (err: any) {
      return { error: { code: err.code, message: err.message } };
    }
  }

  const callers = (): Array<[string, () => string]> => [
    ['the Owner of the group', () => alice.key],
    ['an admin', () => admin.key],
    ['a task token', () => token],
  ];

  describe.each(callers())('for %s', (_who, keyOf) => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(keyOf());
    });

    it('lists a skill whose latest version is revoked at its newest active version, and leaves out one with none', async () => {
      const { skills } = await call(client, 'skills/list');
      expect(skills.map((e: any) => e.uri)).toEqual(['skill://lab/kept/SKILL.md', 'skill://lab/rev/SKILL.md']);
      const rev = skills.find((e: any) => e.uri === 'skill://lab/rev/SKILL.md');
      expect(rev.frontmatter).toEqual({ name: 'rev', description: 'Version one.' });
      expect(rev.resources.map((r: any) => [r.uri, r.digest])).toEqual([
        ['skill://lab/rev/SKILL.md', expect.any(String)],
        ['skill://lab/rev/a.md', sha256(V1['a.md'])],
        ['skill://lab/rev/docs/guide.md', sha256(V1['docs/guide.md'])],
      ]);
      const { resources } = await call(client, 'resources/list');
      expect(resources.map((r: any) => [r.uri, r.description])).toEqual([
        ['skill://lab/kept/SKILL.md', 'Kept.'],
        ['skill://lab/rev/SKILL.md', 'Version one.'],
      ]);
    });

    it('gets, reads and lists the folders of the active version only', async () => {
      const { skill } = await call(client, 'skills/get', { uri: 'skill://lab/rev/SKILL.md' });
      expect(skill.frontmatter.description).toBe('Version one.');
      const read = await call(client, 'resources/read', { uri: 'skill://lab/rev/a.md' });
      expect(read.contents[0].text).toBe('one\n');
      const skillMd = await call(client, 'resources/read', { uri: 'skill://lab/rev/SKILL.md' });
      expect(skillMd.contents[0].text).toContain('Version one.');
      const root = await call(client, 'resources/directory/read', { uri: 'skill://lab/rev' });
      expect(root.resources.map((r: any) => r.name)).toEqual(['SKILL.md', 'a.md', 'docs']);
      // The revoked version's own files name nothing.
      expect(await call(client, 'resources/read', { uri: 'skill://lab/rev/only-v2/secret.md' })).toEqual({
        error: { code: -32602, message: 'MCP error -32602: Resource not found: skill://lab/rev/only-v2/secret.md' },
      });
      expect(await call(client, 'resources/directory/read', { uri: 'skill://lab/rev/only-v2' })).toEqual({
        error: { code: -32602, message: 'MCP error -32602: No folder of a skill is served at skill://lab/rev/only-v2' },
      });
    });

    it('serves nothing of a skill whose versions are all yanked or revoked: -32602, as a URI that names nothing', async () => {
      const same = async (method: string, uri: string) => {
        const gone = await call(client, method, { uri });
        const unknown = await call(client, method, { uri: uri.replace('/gone', '/nosuch') });
        expect(gone.error?.code).toBe(-32602);
        expect(gone.error.message.replace('/gone', '/X')).toBe(unknown.error.message.replace('/nosuch', '/X'));
      };
      await same('skills/get', 'skill://lab/gone/SKILL.md');
      await same('resources/read', 'skill://lab/gone/SKILL.md');
      await same('resources/read', 'skill://lab/gone/a.md');
      await same('resources/read', 'skill://lab/gone/only-v2/secret.md');
      await same('resources/directory/read', 'skill://lab/gone');
      await same('resources/directory/read', 'skill://lab/gone/docs');
    });
  });

  it('serves a token pinned to a revoked version nothing of it', async () => {
    const client = await connect(pinnedToken);
    expect((await call(client, 'skills/list')).skills).toEqual([]);
    expect((await call(client, 'resources/list')).resources).toEqual([]);
    for (const [method, uri] of [
      ['skills/get', 'skill://lab/rev/SKILL.md'],
      ['resources/read', 'skill://lab/rev/only-v2/secret.md'],
      ['resources/read', 'skill://lab/rev/a.md'],
      ['resources/directory/read', 'skill://lab/rev'],
    ]) {
      expect((await call(client, method, { uri })).error?.code).toBe(-32602);
    }
  });

  it('logs no internal error for any of it', () => {
    expect(t.logs.filter((line) => line.includes('mcp request failed'))).toEqual([]);
  });
});
