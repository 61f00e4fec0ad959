// Single files of a version and the manifest with SKILL.md (docs/api.md#single-files), for users and task
// tokens (docs/api.md#authentication): headers, 304, binary and large files, exact paths, and damaged stored bytes.
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageKey } from '../../src/storage/blob-keys';
import { BLOB_STORE, BlobStore } from '../../src/storage/blob-store';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { binary, publishSkill, publishVersion, replaceStoredBytes, sha256 } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

const MIB = 1024 * 1024;
const FRONTMATTER = 'name: toolkit\ndescription: "Tools, with files."';
const BODY = '# Toolkit\n\nRead docs/résumé.md.\n';
const SKILL_MD = `---\n${FRONTMATTER}\n---\n${BODY}`;
const FILES: Record<string, Buffer> = {
  'scripts/run.py': Buffer.from('print("v1")\n'),
  'data/blob.bin': randomBytes(4096),
  'docs/résumé.md': Buffer.from('# Résumé\n'),
  'a b.txt': Buffer.from('spaced\n'),
  'page.html': Buffer.from('<script>alert(1)</script>'),
  'logo.svg': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
  LICENSE: Buffer.from('MIT\n'),
  'big/random.bin': randomBytes(MIB),
  'big/text.txt': Buffer.from('The quick brown fox jumps over the lazy dog.\n'.repeat(Math.ceil(MIB / 45))).subarray(
    0,
    MIB,
  ),
};

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe('single files and the manifest', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let bob: TestUser;
  let skill: { id: number };
  let port: number;

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    [alice, bob] = await Promise.all(['alice', 'bob'].map((n) => createUser(t, n)));
    skill = await publishSkill(t, alice, 'toolkit', {}, { frontmatter: FRONTMATTER, body: BODY, files: FILES });
    await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  /** The path goes out exactly as written (no client normalises `..` or `%2e`). */
  function raw(path: string, key: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers: { ...as(key), ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  const file = (path: string, query = ''): string => `/api/skills/${skill.id}/files/${path}${query}`;
  const encode = (path: string): string => path.split('/').map(encodeURIComponent).join('/');
  const etag = (data: Buffer | string): string => `"sha256:${sha256(data)}"`;

  it('serves SKILL.md with the headers of docs/api.md#single-files', async () => {
    const res = await raw(file('SKILL.md'), alice.key);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(SKILL_MD);
    expect(res.headers).toEqual(
      expect.objectContaining({
        'content-type': 'text/markdown; charset=utf-8',
        'content-length': String(Buffer.byteLength(SKILL_MD)),
        etag: etag(SKILL_MD),
        'cache-control': 'private, no-cache',
        'x-content-type-options': 'nosniff',
        'content-security-policy': 'sandbox',
      }),
    );
    expect(res.headers['content-disposition']).toBeUndefined();
    const pinned = await raw(file('SKILL.md', '?version=1'), alice.key);
    expect(pinned.headers['cache-control']).toBe('private, max-age=31536000, immutable');
  });

  it('answers 304 to If-None-Match with the file hash, reading nothing', async () => {
    for (const header of [etag(SKILL_MD), `W/${etag(SKILL_MD)}`, `"other", ${etag(SKILL_MD)}`, '*']) {
      const res = await raw(file('SKILL.md'), alice.key, { 'if-none-match': header });
      expect(res.status).toBe(304);
      expect(res.body.length).toBe(0);
      expect(res.headers).toEqual(
        expect.objectContaining({
          etag: etag(SKILL_MD),
          'x-content-type-options': 'nosniff',
          'content-security-policy': 'sandbox',
        }),
      );
    }
    expect((await raw(file('SKILL.md'), alice.key, { 'if-none-match': etag('other') })).status).toBe(200);
  });

  it.each([
    ['scripts/run.py', 'text/plain; charset=utf-8', false],
    ['a b.txt', 'text/plain; charset=utf-8', false],
    ['big/text.txt', 'text/plain; charset=utf-8', false],
    ['docs/résumé.md', 'text/markdown; charset=utf-8', false],
    ['data/blob.bin', 'application/octet-stream', true],
    ['big/random.bin', 'application/octet-stream', true],
    ['page.html', 'application/octet-stream', true],
    ['logo.svg', 'application/octet-stream', true],
    ['LICENSE', 'application/octet-stream', true],
  ])('serves %s exactly, as %s', async (path, contentType, attachment) => {
    const res = await raw(file(encode(path)), alice.key);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(contentType);
    expect(res.headers['content-length']).toBe(String(FILES[path].length));
    expect(res.headers.etag).toBe(etag(FILES[path]));
    expect(sha256(res.body)).toBe(sha256(FILES[path]));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe('sandbox');
    if (attachment) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${name}"; filename*=UTF-8''${name}`);
    } else {
      expect(res.headers['content-disposition']).toBeUndefined();
    }
  });

  it('reads a 1 MiB file through supertest as well, in full', async () => {
    const res = await t.http.get(file('big/random.bin')).set(as(alice.key)).buffer().parse(binary);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(MIB);
    expect(createHash('sha256').update(res.body).digest('hex')).toBe(sha256(FILES['big/random.bin']));
  });

  it.each([
    ['an encoded slash', 'scripts%2Frun.py', 200],
    ['an encoded non-ASCII name', 'docs/r%C3%A9sum%C3%A9.md', 200],
    ['the same name decomposed (NFD)', encode('docs/résumé.md'.normalize('NFD')), 404],
    ['an encoded space', 'a%20b.txt', 200],
    ['a plus for a space', 'a+b.txt', 404],
    ['another case', 'skill.md', 404],
    ['the skill folder prefix', 'toolkit/SKILL.md', 404],
    ['..', '..', 404],
    ['a .. segment', 'scripts/../SKILL.md', 404],
    ['%2e%2e', '%2e%2e/SKILL.md', 404],
    ['an encoded ../', '..%2FSKILL.md', 404],
    ['a . segment', './SKILL.md', 404],
    ['a trailing slash', 'SKILL.md/', 404],
    ['a folder', 'scripts', 404],
    ['a folder with a slash', 'scripts/', 404],
    ['a leading slash', '/SKILL.md', 404],
    ['a NUL', '%00', 404],
    ['a NUL after the name', 'SKILL.md%00', 404],
    ['a malformed escape', '%E0%A4%A', 404],
    ['a bad escape', 'SKILL%zz.md', 404],
    ['a backslash', 'scripts%5Crun.py', 404],
  ])('%s: %s answers %i', async (_what, path, status) => {
    const res = await raw(file(path), alice.key);
    if (status === 200) {
      expect(res.status).toBe(200);
      return;
    }
    expect(res.status).toBe(404);
    const body = JSON.parse(res.body.toString()) as Record<string, unknown>;
    expect(body).toEqual(
      expect.objectContaining({ statusCode: 404, code: 'NOT_FOUND', requestId: expect.any(String) }),
    );
  });

  it('picks the version: the latest by default, another on request', async () => {
    const owner = await createUser(t, 'vera');
    const v1 = await publishSkill(t, owner, 'versioned', {}, { files: { 'run.py': 'print(1)\n' } });
    const v2 = skillZip('versioned', { files: { 'run.py': 'print(2)\n', 'new.md': 'new\n' } });
    expect((await publishVersion(t, owner, v1.id, v2)).status).toBe(201);
    const get = (path: string): Promise<RawResponse> => raw(`/api/skills/${v1.id}/files/${path}`, owner.key);
    expect((await get('run.py')).body.toString()).toBe('print(2)\n');
    expect((await get('run.py?version=1')).body.toString()).toBe('print(1)\n');
    expect((await get('new.md?version=1')).status).toBe(404);
    expect((await get('run.py?version=3')).status).toBe(404);
    expectError(
      await t.http.get(`/api/skills/${v1.id}/files/run.py?version=x`).set(as(owner.key)),
      400,
      'VALIDATION_FAILED',
    );
    const manifest = await t.http.get(`/api/skills/${v1.id}/manifest?version=1`).set(as(owner.key));
    expect(manifest.body.files.map((f: { path: string }) => f.path)).toEqual(['SKILL.md', 'run.py']);
  });

  it('the manifest carries the text of SKILL.md', async () => {
    const res = await t.http.get(`/api/skills/${skill.id}/manifest`).set(as(alice.key));
    expect(res.status).toBe(200);
    expect(res.body.skill_md).toBe(SKILL_MD);
    expect(res.body.files.find((f: { path: string }) => f.path === 'SKILL.md').sha256).toBe(sha256(SKILL_MD));
  });

  it('is 404 for whoever may not read the skill, and for a deleted skill except to admins', async () => {
    expectError(await t.http.get(file('SKILL.md')).set(as(bob.key)), 404, 'NOT_FOUND');
    expectError(await t.http.get(`/api/skills/${skill.id}/manifest`).set(as(bob.key)), 404, 'NOT_FOUND');
    expectError(await t.http.get(`/api/skills/999999/files/SKILL.md`).set(as(alice.key)), 404, 'NOT_FOUND');
    expectError(await t.http.get(`/api/skills/x/files/SKILL.md`).set(as(alice.key)), 404, 'NOT_FOUND');
    expectError(await t.http.get(file('SKILL.md')), 401, 'UNAUTHENTICATED');
    const gone = await publishSkill(t, alice, 'gone-soon', {}, { files: { 'a.md': 'a\n' } });
    expect((await t.http.delete(`/api/skills/${gone.id}`).set(as(alice.key))).status).toBe(204);
    expectError(await t.http.get(`/api/skills/${gone.id}/files/a.md`).set(as(alice.key)), 404, 'NOT_FOUND');
    expectError(await t.http.get(`/api/skills/${gone.id}/manifest`).set(as(alice.key)), 404, 'NOT_FOUND');
    expect((await t.http.get(`/api/skills/${gone.id}/files/a.md`).set(as(ADMIN_KEY))).text).toBe('a\n');
  });

  it('a task token reads the manifest and files of its resolved set, at the resolved version only', async () => {
    const owner = await createUser(t, 'tess');
    const inSet = await publishSkill(t, owner, 'in-set', {}, { files: { 'ref.md': 'one\n' } });
    const v2 = skillZip('in-set', { files: { 'ref.md': 'two\n' } });
    expect((await publishVersion(t, owner, inSet.id, v2)).status).toBe(201);
    const outside = await publishSkill(t, owner, 'outside', {}, { files: { 'ref.md': 'no\n' } });
    const { team } = await s.teamWithGhost(owner, 'readers', ['in-set'], []);
    const task = await s.task(owner, { team_id: team.id });
    const token = (await s.post(owner, `/api/tasks/${task.id}/tokens`, {})).token as string;

    const manifest = await t.http.get(`/api/skills/${inSet.id}/manifest`).set(as(token));
    expect(manifest.status).toBe(200);
    expect(manifest.body).toEqual(expect.objectContaining({ version: 2, skill_md: expect.stringContaining('in-set') }));
    expect((await t.http.get(`/api/skills/${inSet.id}/manifest?version=2`).set(as(token))).status).toBe(200);
    const ref = await raw(`/api/skills/${inSet.id}/files/ref.md`, token);
    expect({ status: ref.status, body: ref.body.toString() }).toEqual({ status: 200, body: 'two\n' });
    expect((await raw(`/api/skills/${inSet.id}/files/ref.md?version=2`, token)).status).toBe(200);

    for (const path of [
      `/api/skills/${inSet.id}/manifest?version=1`,
      `/api/skills/${inSet.id}/files/ref.md?version=1`,
      `/api/skills/${outside.id}/manifest`,
      `/api/skills/${outside.id}/files/ref.md`,
      `/api/skills/${skill.id}/files/SKILL.md`,
    ]) {
      expectError(await t.http.get(path).set(as(token)), 404, 'NOT_FOUND');
    }
  });

  it('damaged stored bytes are a 500 before the answer starts, and a cut connection after', async () => {
    const owner = await createUser(t, 'dora');
    const big = randomBytes(300 * 1024);
    const older = await publishSkill(t, owner, 'older', {}, { files: { 'big.bin': big } });
    // A version a release before the offsets published (a replica not yet upgraded): its package is
    // read whole once, and its offsets recorded for the next reads.
    const offsets = () =>
      withClient(t.db.url, (c) =>
        c.query('SELECT file_offsets FROM skill_versions WHERE skill_id = $1', [older.id]).then((r) => r.rows[0]),
      );
    const recorded = await offsets();
    await withClient(t.db.url, (c) =>
      c.query('UPDATE skill_versions SET file_offsets = NULL WHERE skill_id = $1', [older.id]),
    );
    const read = await raw(`/api/skills/${older.id}/files/big.bin`, owner.key);
    expect({ status: read.status, same: read.body.equals(big) }).toEqual({ status: 200, same: true });
    expect(await offsets()).toEqual(recorded);

    // No offsets and bytes that do not hash to the version's: a 500 before the answer starts.
    const damaged = await publishSkill(t, owner, 'damaged', {}, { files: { 'big.bin': randomBytes(300 * 1024) } });
    await withClient(t.db.url, (c) =>
      c.query('UPDATE skill_versions SET file_offsets = NULL WHERE skill_id = $1', [damaged.id]),
    );
    const stored = (await t.app.get<BlobStore>(BLOB_STORE).get(packageKey(damaged.latest_version.content_hash)))!;
    stored[stored.length - 30] ^= 1;
    await replaceStoredBytes(t, damaged.latest_version.content_hash, stored);
    expectError(await t.http.get(`/api/skills/${damaged.id}/files/big.bin`).set(as(owner.key)), 500, 'INTERNAL');

    // Bytes the store lost.
    const lost = await publishSkill(t, owner, 'lost', {}, { files: { 'a.txt': 'a' } });
    rmSync(join(t.config.storage.dir, ...packageKey(lost.latest_version.content_hash).split('/')));
    expectError(await t.http.get(`/api/skills/${lost.id}/files/a.txt`).set(as(owner.key)), 500, 'INTERNAL');

    const other = await publishSkill(t, owner, 'damaged-data', {}, { files: { 'big.bin': randomBytes(300 * 1024) } });
    // Bytes deep inside the (stored) data of big.bin: found only once the answer has started.
    const hash = other.latest_version.content_hash;
    const bytes = (await t.app.get<BlobStore>(BLOB_STORE).get(packageKey(hash)))!;
    bytes.fill(0xff, 289_999, 290_003);
    await replaceStoredBytes(t, hash, bytes);
    const outcome = await raw(`/api/skills/${other.id}/files/big.bin`, owner.key).then(
      (res) => ({ status: res.status, complete: res.body.length === Number(res.headers['content-length']) }),
      (err: Error) => ({ error: err.message }),
    );
    expect(outcome).not.toEqual(expect.objectContaining({ complete: true }));
  });
});
