// Skills over MCP (docs/mcp-skills.md) as a host uses them: the SDK's own Client over Streamable
// HTTP against the real app on a real port. Personal, group, nested-group and public skills, one
// name in several scopes, a reader without a role, a task token's view, pages, digests that match
// the bytes, binary files, folders, and a skill past the extension's limits.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { listen, rawRequest } from '../support/raw-http';
import { Scenario } from '../support/scenario';
import { publishSkill } from '../support/skills';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

const ANY = z.looseObject({});
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)]);
const GUIDE = '# Guide\n\nStep one: read. Step two: résumé.\n';
/** Enough skills in one group that skills/list needs a second page (50 entries a page). */
const PAGED = 55;

interface Entry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

describe('Skills over MCP (SEP-2640)', () => {
  let t: TestApp;
  let s: Scenario;
  let port: number;
  let alice: TestUser;
  let bob: TestUser;
  let token: string;
  let pinned: any;
  const clients: Client[] = [];

  beforeAll(async () => {
    // A package of 513 files must be accepted to show a skill past the extension's limit of 512.
    t = await startTestApp({ MAX_PACKAGE_ENTRIES: '600' });
    s = new Scenario(t);
    port = await listen(t);
    [alice, bob] = await Promise.all(['alice', 'bob'].map((n) => createUser(t, n)));
    await s.group(alice, 'team-a');
    await s.group(alice, 'team-a/sub');
    await publishSkill(
      t,
      alice,
      'reader',
      {},
      {
        frontmatter:
          'name: reader\ndescription: Reads the guide.\nlicense: MIT\nmetadata:\n  version: "2.1"\n  tags: [a, b]',
        body: '# Reader\n\nRead references/guide.md.\n',
        files: {
          'references/guide.md': GUIDE,
          'references/forms/form-a.md': '# A\n',
          'assets/logo.png': PNG,
          'scripts/run.py': 'print("hi")\n',
        },
      },
    );
    // One name in three scopes: personal, group and public.
    await s.skill(alice, 'shared', 'default', 'Personal shared.');
    await s.skill(alice, 'shared', 'team-a', 'Group shared.');
    await s.skill(ADMIN_KEY, 'shared', 'public', 'Public shared.');
    await s.skill(ADMIN_KEY, 'tools', 'public', 'Public tools.');
    await s.skill(alice, 'deep', 'team-a/sub', 'In a nested group.');
    // A skill of team-a named like its subgroup, with a folder named like the subgroup's skill.
    await publishSkill(
      t,
      alice,
      'sub',
      { namespace: 'team-a' },
      { description: 'Named like a group.', files: { 'deep/SKILL.md': '# not a skill\n', 'notes.md': 'n' } },
    );
    await s.skill(bob, 'secret', 'default', "Bob's own.");
    const many: Record<string, string> = {};
    for (let i = 0; i < 512; i++) many[`parts/p${i}.txt`] = `${i}\n`;
    await publishSkill(t, alice, 'many', {}, { description: 'Too many files.', files: many });
    pinned = await publishSkill(t, alice, 'pinned', {}, { description: 'Version one.' });
    const { team } = await s.teamWithGhost(alice, 'work', ['reader', 'shared', 'pinned'], [], 'default', {
      pinned: { skill_id: pinned.id, version: 1 },
    });
    await s.newVersion(alice, pinned.id, 'pinned', 'Version two.');
    const task = await s.task(alice, { team_id: team.id });
    token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'mcp-skills-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`), {
        requestInit: { headers: as(key) },
      }),
    );
    clients.push(client);
    return client;
  }

  async function request(key: string | Client, method: string, params: Record<string, unknown> = {}): Promise<any> {
    const client = typeof key === 'string' ? await connect(key) : key;
    return client.request({ method, params }, ANY);
  }

  /** Every entry of skills/list, page by page, and the pages. */
  async function listAll(key: string): Promise<{ entries: Entry[]; pages: Entry[][] }> {
    const client = await connect(key);
    const pages: Entry[][] = [];
    let cursor: string | undefined;
    do {
      const page = await request(client, 'skills/list', cursor ? { cursor } : {});
      pages.push(page.skills);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 20);
    return { entries: pages.flat(), pages };
  }

  async function refusal(key: string, method: string, params: Record<string, unknown>): Promise<string> {
    try {
      await request(key, method, params);
    } catch (err: any) {
      expect(err.code).toBe(-32602);
      return err.message;
    }
    throw new Error(`${method} ${JSON.stringify(params)} succeeded`);
  }

  async function bytesOf(key: string, uri: string): Promise<{ bytes: Buffer; content: any }> {
    const { contents } = await request(key, 'resources/read', { uri });
    expect(contents).toHaveLength(1);
    const [content] = contents;
    expect(content.uri).toBe(uri);
    const bytes =
      typeof content.text === 'string' ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64');
    return { bytes, content };
  }

  const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

  it('declares the extension inline, with directoryRead, and the resources capability', async () => {
    const client = await connect(alice.key);
    expect(client.getServerCapabilities()).toEqual(
      expect.objectContaining({
        resources: {},
        extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
      }),
    );
  });

  it('declares exactly the capabilities docs/mcp-skills.md shows, for a user and for a token', async () => {
    const doc = readFileSync(join(__dirname, '../../docs/mcp-skills.md'), 'utf8');
    const block = /In `initialize`, the server declares:\n\n```json\n([\s\S]*?)\n```/.exec(doc);
    expect(block).not.toBeNull();
    const documented = JSON.parse(block![1]);
    for (const key of [alice.key, token]) {
      expect({ capabilities: (await connect(key)).getServerCapabilities() }).toEqual(documented);
    }
  });

  it('lists every skill a user may read, in name order then scope order, the one past the limits left out', async () => {
    const { entries } = await listAll(alice.key);
    expect(entries.map((e) => e.uri)).toEqual([
      'skill://team-a.sub/deep/SKILL.md',
      'skill://default/pinned/SKILL.md',
      'skill://default/reader/SKILL.md',
      'skill://default/shared/SKILL.md',
      'skill://team-a/shared/SKILL.md',
      'skill://public/shared/SKILL.md',
      'skill://team-a/sub/SKILL.md',
      'skill://public/tools/SKILL.md',
    ]);
    // Bob reads his own skill and the public ones, never alice's or the groups'.
    expect((await listAll(bob.key)).entries.map((e) => e.uri)).toEqual([
      'skill://default/secret/SKILL.md',
      'skill://public/shared/SKILL.md',
      'skill://public/tools/SKILL.md',
    ]);
  });

  it('carries the frontmatter as parsed and every file with a digest that hashes its bytes', async () => {
    const { entries } = await listAll(alice.key);
    const reader = entries.find((e) => e.uri === 'skill://default/reader/SKILL.md')!;
    expect(reader.frontmatter).toEqual({
      name: 'reader',
      description: 'Reads the guide.',
      license: 'MIT',
      metadata: { version: '2.1', tags: ['a', 'b'] },
    });
    expect(reader.resources.map((r) => r.uri)).toEqual([
      'skill://default/reader/SKILL.md',
      'skill://default/reader/assets/logo.png',
      'skill://default/reader/references/forms/form-a.md',
      'skill://default/reader/references/guide.md',
      'skill://default/reader/scripts/run.py',
    ]);
    for (const resource of reader.resources) {
      const { bytes } = await bytesOf(alice.key, resource.uri);
      expect({ digest: sha256(bytes), size: bytes.length }).toEqual({ digest: resource.digest, size: resource.size });
    }
    // The same entry from skills/get, with no cursor.
    const got = await request(alice.key, 'skills/get', { uri: reader.uri });
    expect(got).toEqual({ skill: reader });
  });

  it('reads UTF-8 text as text and other files as base64 blobs, typed as the single-file route', async () => {
    const md = await bytesOf(alice.key, 'skill://default/reader/references/guide.md');
    expect(md.content).toEqual({ uri: md.content.uri, mimeType: 'text/markdown', text: GUIDE });
    const py = await bytesOf(alice.key, 'skill://default/reader/scripts/run.py');
    expect(py.content.mimeType).toBe('text/plain');
    const png = await bytesOf(alice.key, 'skill://default/reader/assets/logo.png');
    expect(png.content).toEqual({
      uri: png.content.uri,
      mimeType: 'application/octet-stream',
      blob: PNG.toString('base64'),
    });
    expect(png.bytes.equals(PNG)).toBe(true);
  });

  it('serves group, nested-group and public skills by their scope', async () => {
    const deep = await request(alice.key, 'skills/get', { uri: 'skill://team-a.sub/deep/SKILL.md' });
    expect(deep.skill.frontmatter).toEqual({ name: 'deep', description: 'In a nested group.' });
    expect(deep.skill.resources.map((r: any) => r.uri)).toEqual(['skill://team-a.sub/deep/SKILL.md']);
    for (const [uri, description] of [
      ['skill://default/shared/SKILL.md', 'Personal shared.'],
      ['skill://team-a/shared/SKILL.md', 'Group shared.'],
      ['skill://public/shared/SKILL.md', 'Public shared.'],
    ]) {
      const { bytes } = await bytesOf(alice.key, uri);
      expect(bytes.toString('utf8')).toContain(`description: "${description}"`);
    }
  });

  it('reads a URI one way: the first segment is the scope, the second the skill, the rest the file', async () => {
    // skill://team-a/sub/deep/SKILL.md is the file deep/SKILL.md of team-a's skill `sub`, never
    // the SKILL.md of team-a/sub's `deep` (that one is skill://team-a.sub/deep/SKILL.md).
    const sub = await request(alice.key, 'skills/get', { uri: 'skill://team-a/sub/SKILL.md' });
    expect(sub.skill.resources.map((r: any) => r.uri)).toEqual([
      'skill://team-a/sub/SKILL.md',
      'skill://team-a/sub/deep/SKILL.md',
      'skill://team-a/sub/notes.md',
    ]);
    expect((await bytesOf(alice.key, 'skill://team-a/sub/deep/SKILL.md')).bytes.toString()).toBe('# not a skill\n');
    expect((await bytesOf(alice.key, 'skill://team-a/sub/notes.md')).bytes.toString()).toBe('n');
    const root = await request(alice.key, 'resources/directory/read', { uri: 'skill://team-a/sub' });
    expect(root.resources.map((r: any) => r.name)).toEqual(['SKILL.md', 'deep', 'notes.md']);
    const folder = await request(alice.key, 'resources/directory/read', { uri: 'skill://team-a/sub/deep' });
    expect(folder.resources.map((r: any) => r.uri)).toEqual(['skill://team-a/sub/deep/SKILL.md']);
    // So the old nested form names no SKILL.md of a skill, and a file only where team-a's skill has it.
    expect(await refusal(alice.key, 'skills/get', { uri: 'skill://team-a/sub/deep/SKILL.md' })).toBe(
      'MCP error -32602: No skill is served at skill://team-a/sub/deep/SKILL.md',
    );
    const expected = await refusal(alice.key, 'resources/read', { uri: 'skill://team-a/nosuch/x.md' });
    const nested = await refusal(alice.key, 'resources/read', { uri: 'skill://team-a/sub/deep/missing.md' });
    expect(nested.replace('sub/deep/missing.md', 'X')).toBe(expected.replace('nosuch/x.md', 'X'));
  });

  it('answers a skill the caller may not read exactly as one that does not exist (-32602)', async () => {
    const unknown = await refusal(bob.key, 'skills/get', { uri: 'skill://team-a/nothing/SKILL.md' });
    const unreadable = await refusal(bob.key, 'skills/get', { uri: 'skill://team-a/shared/SKILL.md' });
    expect(unknown.replace('nothing', 'X')).toBe(unreadable.replace('shared', 'X'));
    expect(unreadable).toContain('No skill is served at skill://team-a/shared/SKILL.md');
    // Alice's personal skill is no one else's `default`.
    await refusal(bob.key, 'skills/get', { uri: 'skill://default/reader/SKILL.md' });
    const readUnknown = await refusal(bob.key, 'resources/read', { uri: 'skill://team-a/none/SKILL.md' });
    const readUnreadable = await refusal(bob.key, 'resources/read', { uri: 'skill://team-a/shared/SKILL.md' });
    expect(readUnknown.replace('none', 'X')).toBe(readUnreadable.replace('shared', 'X'));
    const dirUnreadable = await refusal(bob.key, 'resources/directory/read', { uri: 'skill://team-a/shared' });
    const dirUnknown = await refusal(bob.key, 'resources/directory/read', { uri: 'skill://team-a/nonex' });
    expect(dirUnknown.replace('nonex', 'X')).toBe(dirUnreadable.replace('shared', 'X'));
    // Not a SKILL.md, not a skill URI at all, a file that is not in the manifest.
    await refusal(alice.key, 'skills/get', { uri: 'skill://default/reader/references/guide.md' });
    await refusal(alice.key, 'skills/get', { uri: 'https://example.com/SKILL.md' });
    await refusal(alice.key, 'resources/read', { uri: 'skill://default/reader/references/missing.md' });
    await refusal(alice.key, 'resources/read', { uri: 'skill://default/reader/references' });
  });

  it('lists folders: direct children, subfolders as inode/directory, a file or a missing path -32602', async () => {
    const root = await request(alice.key, 'resources/directory/read', { uri: 'skill://default/reader' });
    expect(root.resources).toEqual([
      { uri: 'skill://default/reader/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: expect.any(Number) },
      { uri: 'skill://default/reader/assets', name: 'assets', mimeType: 'inode/directory' },
      { uri: 'skill://default/reader/references', name: 'references', mimeType: 'inode/directory' },
      { uri: 'skill://default/reader/scripts', name: 'scripts', mimeType: 'inode/directory' },
    ]);
    expect(root.nextCursor).toBeUndefined();
    const references = await request(alice.key, 'resources/directory/read', {
      uri: 'skill://default/reader/references',
    });
    expect(references.resources.map((r: any) => [r.name, r.mimeType])).toEqual([
      ['forms', 'inode/directory'],
      ['guide.md', 'text/markdown'],
    ]);
    await refusal(alice.key, 'resources/directory/read', { uri: 'skill://default/reader/references/guide.md' });
    await refusal(alice.key, 'resources/directory/read', { uri: 'skill://default/reader/nope' });
  });

  it('leaves a skill past the limits out of skills/list and resources/list, and skills/get says why', async () => {
    const { entries } = await listAll(alice.key);
    expect(entries.some((e) => e.uri.includes('/many/'))).toBe(false);
    const { resources } = await request(alice.key, 'resources/list');
    expect(resources.some((r: any) => r.uri.includes('/many/'))).toBe(false);
    const got = await request(alice.key, 'skills/get', { uri: 'skill://default/many/SKILL.md' });
    expect(got.skill.resources).toHaveLength(513);
    expect(got._meta['skill-resolver/unlisted']).toBe(
      'Left out of skills/list: this version has 513 files, more than the 512 a skill may have under the MCP Skills extension',
    );
    // Its files are still readable by URI, as over the single-file route.
    const { bytes } = await bytesOf(alice.key, 'skill://default/many/parts/p7.txt');
    expect(bytes.toString()).toBe('7\n');
  });

  it('lists each SKILL.md as a resource with the frontmatter name and description; templates answer', async () => {
    const { resources, nextCursor } = await request(alice.key, 'resources/list');
    expect(nextCursor).toBeUndefined();
    expect(resources.find((r: any) => r.uri === 'skill://team-a/shared/SKILL.md')).toEqual({
      uri: 'skill://team-a/shared/SKILL.md',
      name: 'shared',
      title: 'team-a/shared',
      description: 'Group shared.',
      mimeType: 'text/markdown',
      size: expect.any(Number),
    });
    expect(resources).toHaveLength(8);
    const { resourceTemplates } = await request(alice.key, 'resources/templates/list');
    expect(resourceTemplates.map((r: any) => r.uriTemplate)).toEqual([
      'skill://default/{name}/{+path}',
      'skill://{group}/{name}/{+path}',
      'skill://public/{name}/{+path}',
    ]);
  });

  it("shows a task token exactly its task's resolved skill_refs, at the versions the task resolves", async () => {
    const { entries } = await listAll(token);
    expect(entries.map((e) => e.uri)).toEqual([
      'skill://default/pinned/SKILL.md',
      'skill://default/reader/SKILL.md',
      'skill://default/shared/SKILL.md',
    ]);
    // Pinned to version 1: the token reads it, the user reads version 2.
    const forToken = await bytesOf(token, 'skill://default/pinned/SKILL.md');
    const forUser = await bytesOf(alice.key, 'skill://default/pinned/SKILL.md');
    expect(forToken.bytes.toString()).toContain('Version one.');
    expect(forUser.bytes.toString()).toContain('Version two.');
    const entry = entries.find((e) => e.uri === 'skill://default/pinned/SKILL.md')!;
    expect(entry.resources[0].digest).toBe(sha256(forToken.bytes));
    // Outside its set: the same answer as an unknown skill.
    const outside = await refusal(token, 'skills/get', { uri: 'skill://public/tools/SKILL.md' });
    const unknown = await refusal(token, 'skills/get', { uri: 'skill://public/nosuch/SKILL.md' });
    expect(outside.replace('tools', 'X')).toBe(unknown.replace('nosuch', 'X'));
    await refusal(token, 'resources/read', { uri: 'skill://team-a/shared/SKILL.md' });
    const { resources } = await request(token, 'resources/list');
    expect(resources.map((r: any) => r.uri)).toEqual(entries.map((e) => e.uri));
  });

  it('pages skills/list with opaque cursors, never splitting an entry', async () => {
    const zip = (i: number) =>
      skillZip(`p-${String(i).padStart(3, '0')}`, { description: `Paged ${i}.`, files: { 'a.md': 'a' } });
    for (let i = 0; i < PAGED; i++) {
      const res = await t.http
        .post('/api/skills')
        .set(as(alice.key))
        .field('namespace', 'team-a')
        .attach('file', zip(i), 'skill.zip');
      expect(res.status).toBe(201);
    }
    const { entries, pages } = await listAll(alice.key);
    expect(pages.length).toBe(2);
    expect(pages[0]).toHaveLength(50);
    const uris = entries.map((e) => e.uri);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toHaveLength(8 + PAGED);
    for (const entry of entries) {
      const { skill } = await request(alice.key, 'skills/get', { uri: entry.uri });
      expect(skill.resources).toEqual(entry.resources);
    }
  });

  it('refuses every cursor it did not write as -32602 Invalid cursor, never -32603, for every list', async () => {
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const key = { name: 'reader', rank: 0, namespace: 'default' };
    const skillsCursor = (a: unknown) => b64(JSON.stringify({ v: 1, k: 'skills', a }));
    const forged: Array<[string, string]> = [
      ['not base64url', 'not+a/cursor='],
      ['not JSON', b64('{"v":1')],
      ['wrong fields', b64(JSON.stringify({ v: 1, k: 'skills', a: key, x: 1 }))],
      ['U+0000 in the name', skillsCursor({ ...key, name: 'a\u0000b' })],
      ['U+0000 in the namespace', skillsCursor({ name: 'a', rank: 1, namespace: 'team\u0000a' })],
      ['a lone surrogate', b64('{"v":1,"k":"skills","a":{"name":"\\ud800","rank":0,"namespace":"default"}}')],
      ['over 1 KiB', 'a'.repeat(1025)],
      ['far over 1 KiB', 'a'.repeat(100_000)],
      ['a name that is no skill name', skillsCursor({ ...key, name: 'No Name' })],
      ['a namespace that is no namespace', skillsCursor({ name: 'a', rank: 1, namespace: 'a//b' })],
      ['a rank that does not fit the namespace', skillsCursor({ name: 'a', rank: 0, namespace: 'team-a' })],
      ['another encoding of a valid cursor', b64(JSON.stringify({ v: 1, k: 'skills', a: key }, null, 1))],
      ['a folder cursor', b64(JSON.stringify({ v: 1, k: 'directory', a: 'x' }))],
    ];
    const client = await connect(alice.key);
    const refusedWith = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
      try {
        await client.request({ method, params }, ANY);
        return 'answered';
      } catch (err: any) {
        return { code: err.code, message: err.message };
      }
    };
    const invalid = {
      code: -32602,
      message: 'MCP error -32602: Invalid cursor: pass back a nextCursor exactly as it was received',
    };
    for (const [what, cursor] of forged) {
      for (const method of ['skills/list', 'resources/list']) {
        expect({ what, method, answer: await refusedWith(method, { cursor }) }).toEqual({
          what,
          method,
          answer: invalid,
        });
      }
    }
    // A folder's cursor: a skills cursor, and names no child of a folder could have.
    const folderForged: Array<[string, string]> = [
      ['a skills cursor', skillsCursor(key)],
      ['U+0000', b64(JSON.stringify({ v: 1, k: 'directory', a: 'a\u0000' }))],
      ['a slash', b64(JSON.stringify({ v: 1, k: 'directory', a: 'a/b' }))],
      ['a lone surrogate', b64('{"v":1,"k":"directory","a":"\\udc00"}')],
      ['over 1 KiB', 'a'.repeat(1025)],
    ];
    for (const [what, cursor] of folderForged) {
      const answer = await refusedWith('resources/directory/read', { uri: 'skill://default/reader', cursor });
      expect({ what, answer }).toEqual({ what, answer: invalid });
    }
    // Lists answered in one page wrote no cursor at all.
    for (const method of ['resources/templates/list', 'tools/list']) {
      expect({ method, answer: await refusedWith(method, { cursor: skillsCursor(key) }) }).toEqual({
        method,
        answer: invalid,
      });
    }
    // A cursor the service wrote still leads on.
    const first = await refusedWith('skills/list', {});
    expect(first).toBe('answered');
    const directory = await client.request(
      { method: 'resources/directory/read', params: { uri: 'skill://default/reader/references' } },
      ANY,
    );
    expect(directory.resources).toHaveLength(2);
  });

  it('refuses URIs past their bounds and params that do not fit, as -32602', async () => {
    await refusal(alice.key, 'resources/read', { uri: `skill://default/reader/${'a'.repeat(16_400)}` });
    await refusal(alice.key, 'skills/get', {});
    await refusal(alice.key, 'resources/directory/read', { uri: 42 });
    // Raw, without a client: the same -32602 for a request whose params break the bounds.
    const res = await rawRequest(port, {
      method: 'POST',
      path: '/api/mcp',
      headers: { ...as(alice.key), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'skills/get', params: { uri: 'x'.repeat(20_000) } }),
    });
    expect(res.body.error.code).toBe(-32602);
  });
});
