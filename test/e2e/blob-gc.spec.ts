// The garbage sweep and the purge of a revoked version's bytes (docs/storage.md#garbage,
// docs/storage.md#purge), through the real app, on each store: what no version refers to and is
// older than the grace period goes (in a dry run: is listed), nothing else; a purged version's
// bytes go unless another version shares them, and it is 410 to everyone after. Audited.
import { randomBytes } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { inspectPackage } from '../../src/package/inspect-package';
import { packageKey, PACKAGES_ROOT } from '../../src/storage/blob-keys';
import { DEFAULT_LIMITS } from '../support/package-limits';
import { BLOB_STORE, BlobStore } from '../../src/storage/blob-store';
import { isServerMode, withClient } from '../support/database';
import { S3Server, startS3Server } from '../support/s3-server';
import { Scenario } from '../support/scenario';
import { publishSkill, publishVersion, sha256, storedObjects } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

const DAY = 24 * 3_600_000;
const hashOf = (data: Buffer): string => `sha256:${sha256(data)}`;

interface StoreCase {
  env(): Record<string, string>;
  /** Makes `key` look written `ms` ago. */
  age(t: TestApp, key: string, ms: number): Promise<void>;
  /** A file a write cut short left beside the keys (only a folder has them). */
  leftover?(t: TestApp, ms: number): string;
}

let s3: S3Server;

const STORES: Array<[string, StoreCase]> = [
  [
    'fs',
    {
      env: () => ({ BLOB_STORE: 'fs' }),
      age: (t, key, ms) => {
        const then = new Date(Date.now() - ms);
        utimesSync(join(t.config.storage.dir, ...key.split('/')), then, then);
        return Promise.resolve();
      },
      leftover: (t, ms) => {
        const key = `${PACKAGES_ROOT}sha256/ab/${'ab'.repeat(32)}.zip.4f2a9c.tmp`;
        const path = join(t.config.storage.dir, ...key.split('/'));
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, 'half a package');
        const then = new Date(Date.now() - ms);
        utimesSync(path, then, then);
        return key;
      },
    },
  ],
  [
    'database',
    {
      env: () => ({ BLOB_STORE: 'database' }),
      age: (t, key, ms) =>
        withClient(t.db.url, (c) =>
          c.query(`UPDATE skill_blobs SET created_at = now() - $2 * interval '1 millisecond' WHERE content_hash = $1`, [
            `sha256:${key.split('/').pop()!.slice(0, 64)}`,
            ms,
          ]),
        ).then(() => undefined),
    },
  ],
  [
    's3',
    {
      env: () => ({ BLOB_STORE: 's3', ...s3.env('gc/') }),
      age: (_t, key, ms) => Promise.resolve(s3.age(`gc/${key}`, ms)),
    },
  ],
];

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

describe.each(STORES)('the garbage sweep of the %s store', (_kind, store) => {
  let t: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    t = await startTestApp(store.env());
    alice = await createUser(t, 'alice');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('deletes what no version refers to past the grace period, after listing it in a dry run', async () => {
    const kept = await publishSkill(t, alice, `kept-${_kind}`);
    const keptKey = packageKey(kept.latest_version.content_hash);
    const orphanBytes = skillZip('orphan', { files: { 'x.bin': randomBytes(2000) } });
    const youngBytes = skillZip('young', { files: { 'y.bin': randomBytes(2000) } });
    const blobs = t.app.get<BlobStore>(BLOB_STORE);
    // What a publish that died between its two steps leaves: bytes no version refers to.
    await blobs.putIfAbsent(packageKey(hashOf(orphanBytes)), orphanBytes);
    await blobs.putIfAbsent(packageKey(hashOf(youngBytes)), youngBytes);
    await store.age(t, packageKey(hashOf(orphanBytes)), 2 * DAY);
    await store.age(t, keptKey, 30 * DAY);
    const leftover = store.leftover?.(t, 2 * DAY);
    const expected = [
      { key: packageKey(hashOf(orphanBytes)), bytes: orphanBytes.length },
      ...(leftover ? [{ key: leftover, bytes: 'half a package'.length }] : []),
    ].sort((a, b) => a.key.localeCompare(b.key));
    const auditCount = async () =>
      (await t.http.get('/api/audit-events?action=blob.gc').set(as(ADMIN_KEY))).body.items.length as number;
    const audits = await auditCount();

    const dry = await t.http.post('/api/admin/blob-gc').set(as(ADMIN_KEY)).send({ dry_run: true });
    expect(dry.status).toBe(200);
    expect({ ...dry.body, items: [...dry.body.items].sort((a, b) => a.key.localeCompare(b.key)) }).toEqual({
      dry_run: true,
      items: expected,
      bytes: expected.reduce((sum, i) => sum + i.bytes, 0),
    });
    expect((await storedObjects(t)).length).toBe(3 + (leftover ? 1 : 0));
    expect(await auditCount()).toBe(audits);

    const swept = await t.http.post('/api/admin/blob-gc').set(as(ADMIN_KEY)).send({});
    expect(swept.status).toBe(200);
    expect(swept.body.dry_run).toBe(false);
    expect([...swept.body.items].sort((a, b) => a.key.localeCompare(b.key))).toEqual(expected);
    expect((await storedObjects(t)).map((o) => o.key).sort()).toEqual([keptKey, packageKey(hashOf(youngBytes))].sort());
    const [event] = (await t.http.get('/api/audit-events?action=blob.gc').set(as(ADMIN_KEY))).body.items;
    expect(event).toEqual(
      expect.objectContaining({
        action: 'blob.gc',
        target_type: 'blob',
        target_id: 0,
        details: expect.objectContaining({ store: _kind, objects: expected.length, keys: expect.any(Array) }),
      }),
    );
    // What versions refer to is served as before.
    expect((await t.http.get(`/api/skills/${kept.id}/download?redirect=false`).set(as(alice.key))).status).toBe(200);
  });

  it('keeps old bytes a new version came to refer to', async () => {
    const upload = skillZip(`reused-${_kind}`);
    // What the store holds is the canonical package, not the upload.
    const bytes = inspectPackage(upload, DEFAULT_LIMITS).canonical!;
    await t.app.get<BlobStore>(BLOB_STORE).putIfAbsent(packageKey(hashOf(bytes)), bytes);
    await store.age(t, packageKey(hashOf(bytes)), 5 * DAY);
    const published = await t.http.post('/api/skills').set(as(alice.key)).attach('file', upload, 'skill.zip');
    expect(published.body.latest_version.content_hash).toBe(hashOf(bytes));
    const swept = await t.http.post('/api/admin/blob-gc').set(as(ADMIN_KEY)).send({});
    expect(swept.body.items.map((i: { key: string }) => i.key)).not.toContain(packageKey(hashOf(bytes)));
    expect(
      (await t.http.get(`/api/skills/${published.body.id}/download?redirect=false`).set(as(alice.key))).status,
    ).toBe(200);
  });
});

describe('the garbage sweep route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is for admins: 403 for users, 404 for task tokens, 400 for a bad body', async () => {
    const bob = await createUser(t, 'bob');
    expectError(await t.http.post('/api/admin/blob-gc').set(as(bob.key)).send({}), 403, 'FORBIDDEN');
    const s = new Scenario(t);
    await publishSkill(t, bob, 'tool');
    const { team } = await s.teamWithGhost(bob, 'crew', ['tool']);
    const task = await s.task(bob, { team_id: team.id });
    const { token } = await s.post(bob, `/api/tasks/${task.id}/tokens`, {});
    expectError(await t.http.post('/api/admin/blob-gc').set(as(token)).send({}), 404, 'NOT_FOUND');
    for (const body of [{ dry_run: 'yes' }, { dry_run: true, extra: 1 }]) {
      expectError(await t.http.post('/api/admin/blob-gc').set(as(ADMIN_KEY)).send(body), 400, 'VALIDATION_FAILED');
    }
  });

  (isServerMode() ? it : it.skip)('answers 409 IN_USE while another replica holds the sweep lock', async () => {
    const other = new Client({ connectionString: t.db.url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock(724311907)');
      expectError(await t.http.post('/api/admin/blob-gc').set(as(ADMIN_KEY)).send({}), 409, 'IN_USE');
      await other.query('SELECT pg_advisory_unlock(724311907)');
      expect((await t.http.post('/api/admin/blob-gc').set(as(ADMIN_KEY)).send({})).status).toBe(200);
    } finally {
      await other.end();
    }
  });
});

describe('purging a revoked version', () => {
  let t: TestApp;
  let alice: TestUser;
  beforeAll(async () => {
    t = await startTestApp();
    alice = await createUser(t, 'alice');
  });
  afterAll(async () => {
    await t?.close();
  });

  const purge = (caller: string, id: number, version: number) =>
    t.http.delete(`/api/skills/${id}/versions/${version}/content`).set(as(caller));
  const revoke = (id: number, version: number) =>
    t.http.patch(`/api/skills/${id}/versions/${version}`).set(as(alice.key)).send({ status: 'revoked' }).expect(200);

  it('removes its bytes: 410 to admins too after, the manifest kept, audited once', async () => {
    const skill = await publishSkill(t, alice, 'leaky', {}, { files: { 'secret.txt': 'oops' } });
    const hash = skill.latest_version.content_hash;
    expect(
      (await publishVersion(t, alice, skill.id, skillZip('leaky', { files: { 'secret.txt': 'fixed' } }))).status,
    ).toBe(201);
    expectError(await purge(ADMIN_KEY, skill.id, 1), 409, 'VERSION_NOT_REVOKED');
    await revoke(skill.id, 1);
    expectError(await purge(alice.key, skill.id, 1), 403, 'FORBIDDEN');
    const stranger = await createUser(t, 'stranger');
    expectError(await purge(stranger.key, skill.id, 1), 404, 'NOT_FOUND');
    expectError(await purge(ADMIN_KEY, skill.id, 9), 404, 'NOT_FOUND');
    expect((await t.http.get(`/api/skills/${skill.id}/download?version=1`).set(as(ADMIN_KEY))).status).toBe(200);

    expect((await purge(ADMIN_KEY, skill.id, 1)).status).toBe(204);
    expect((await storedObjects(t)).map((o) => o.key)).not.toContain(packageKey(hash));
    for (const path of [`download?version=1`, `files/secret.txt?version=1`]) {
      expectError(await t.http.get(`/api/skills/${skill.id}/${path}`).set(as(ADMIN_KEY)), 410, 'VERSION_REVOKED');
    }
    const manifest = await t.http.get(`/api/skills/${skill.id}/manifest?version=1`).set(as(ADMIN_KEY));
    expect({ status: manifest.status, hash: manifest.body.content_hash }).toEqual({ status: 200, hash });
    expect((await t.http.get(`/api/skills/${skill.id}/download?version=2`).set(as(alice.key))).status).toBe(200);

    expect((await purge(ADMIN_KEY, skill.id, 1)).status).toBe(204);
    const events = (await t.http.get('/api/audit-events?action=skill_version.purge').set(as(ADMIN_KEY))).body.items;
    expect(events).toEqual([
      expect.objectContaining({
        target_type: 'skill_version',
        target_id: skill.id,
        details: { name: 'leaky', version: 1, content_hash: hash, bytes_kept: false },
      }),
    ]);
  });

  it('keeps bytes another version shares', async () => {
    const first = skillZip('twice', { files: { 'a.txt': 'a' } });
    const skill = await publishSkill(t, alice, 'twice', {}, { files: { 'a.txt': 'a' } });
    expect((await publishVersion(t, alice, skill.id, skillZip('twice', { files: { 'a.txt': 'b' } }))).status).toBe(201);
    // Version 3 has version 1's files again: the same bytes.
    const third = await publishVersion(t, alice, skill.id, first);
    expect(third.status).toBe(201);
    expect(third.body.latest_version.content_hash).toBe(skill.latest_version.content_hash);
    await revoke(skill.id, 1);
    expect((await purge(ADMIN_KEY, skill.id, 1)).status).toBe(204);
    expect((await storedObjects(t)).map((o) => o.key)).toContain(packageKey(skill.latest_version.content_hash));
    expectError(
      await t.http.get(`/api/skills/${skill.id}/download?version=1`).set(as(ADMIN_KEY)),
      410,
      'VERSION_REVOKED',
    );
    expect((await t.http.get(`/api/skills/${skill.id}/download?version=3`).set(as(alice.key))).status).toBe(200);
  });
});
