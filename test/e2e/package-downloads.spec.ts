// Downloads from the package stores (docs/storage.md#downloads), through the real app on an
// S3-protocol server (s3rver, on loopback): access, lifecycle and If-None-Match decided first, then
// a 302 to a presigned URL whose answer carries the download's headers, or the bytes through the
// service (redirect=false, DOWNLOAD_REDIRECT=stream, the Wegent route), served only once checked;
// single files with one ranged request; and a store that lies, or hangs.
import { createHash, randomBytes } from 'node:crypto';
import { packageKey } from '../../src/storage/blob-keys';
import request from 'supertest';
import { withClient } from '../support/database';
import { S3Server, startHangingProxy, startS3Server } from '../support/s3-server';
import { Scenario } from '../support/scenario';
import { binary, publishSkill, sha256 } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

const contentHashOf = (data: Buffer): string => `sha256:${sha256(data)}`;

function metric(scrape: string, name: string, labels: string): number {
  const line = scrape.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('downloads from an S3 store', () => {
  let s3: S3Server;
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let skill: { id: number; latest_version: { content_hash: string } };
  let token: string;
  let taskId: number;

  beforeAll(async () => {
    s3 = await startS3Server();
    t = await startTestApp({ BLOB_STORE: 's3', ...s3.env('registry/') });
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    skill = await publishSkill(t, alice, 'fetcher', {}, { files: { 'data.bin': randomBytes(20_000) } });
    const { team } = await s.teamWithGhost(alice, 'crew', ['fetcher']);
    taskId = (await s.task(alice, { team_id: team.id })).id;
    token = (await s.post(alice, `/api/tasks/${taskId}/tokens`, {})).token;
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('answers a download with a 302 to the store, whose answer is the package with the download headers', async () => {
    const hash = skill.latest_version.content_hash;
    const res = await t.http.get(`/api/skills/${skill.id}/download?version=1`).set(as(alice.key));
    expect(res.status).toBe(302);
    expect(res.headers).toEqual(
      expect.objectContaining({
        etag: `"${hash}"`,
        'content-digest': `sha-256=:${Buffer.from(hash.slice(7), 'hex').toString('base64')}:`,
        'cache-control': 'private, no-store',
      }),
    );
    const location = new URL(res.headers.location);
    expect(location.origin).toBe(s3.endpoint);
    expect(location.pathname).toBe(`/skills/registry/${packageKey(hash)}`);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('60');

    const fetched = await fetch(location);
    const bytes = Buffer.from(await fetched.arrayBuffer());
    expect(contentHashOf(bytes)).toBe(hash);
    expect({
      type: fetched.headers.get('content-type'),
      disposition: fetched.headers.get('content-disposition'),
      cache: fetched.headers.get('cache-control'),
    }).toEqual({
      type: 'application/zip',
      disposition: 'attachment; filename="fetcher-1.zip"',
      cache: 'private, max-age=31536000, immutable',
    });
  });

  it('redirects a task token too, and answers its 304 and its lifecycle before any redirect', async () => {
    const hash = skill.latest_version.content_hash;
    const res = await t.http.get(`/api/skills/${skill.id}/download`).set(as(token));
    expect(res.status).toBe(302);
    expect(contentHashOf(Buffer.from(await (await fetch(res.headers.location)).arrayBuffer()))).toBe(hash);

    const cached = await t.http
      .get(`/api/skills/${skill.id}/download`)
      .set(as(token))
      .set('If-None-Match', `"${hash}"`);
    expect({ status: cached.status, location: cached.headers.location, etag: cached.headers.etag }).toEqual({
      status: 304,
      location: undefined,
      etag: `"${hash}"`,
    });
    // Outside the token's set: 404, never a URL.
    const other = await publishSkill(t, alice, 'outsider');
    expectError(await t.http.get(`/api/skills/${other.id}/download`).set(as(token)), 404, 'NOT_FOUND');
  });

  it('streams with redirect=false and on the Wegent route, with the same headers as ever', async () => {
    const hash = skill.latest_version.content_hash;
    for (const path of [
      `/api/skills/${skill.id}/download?redirect=false`,
      `/api/v1/kinds/skills/${skill.id}/download`,
      `/api/v1/kinds/skills/${skill.id}/download?task_id=${taskId}`,
    ]) {
      const res = await t.http.get(path).set(as(token)).buffer(true).parse(binary);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(contentHashOf(res.body as Buffer)).toBe(hash);
      expect(res.headers).toEqual(
        expect.objectContaining({
          etag: `"${hash}"`,
          'content-type': 'application/zip',
          'content-disposition': 'attachment; filename="fetcher-1.zip"',
          'cache-control': 'private, no-cache',
        }),
      );
    }
    expectError(
      await t.http.get(`/api/skills/${skill.id}/download?redirect=maybe`).set(as(token)),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('answers a revoked version 410 without a URL, and counts downloads by delivery and store', async () => {
    const before = (await t.http.get('/api/metrics').set(as(ADMIN_KEY))).text;
    const doomed = await publishSkill(t, alice, 'doomed');
    await t.http.get(`/api/skills/${doomed.id}/download`).set(as(alice.key)).expect(302);
    await t.http.get(`/api/skills/${doomed.id}/download?redirect=false`).set(as(alice.key)).expect(200);
    await t.http
      .patch(`/api/skills/${doomed.id}/versions/1`)
      .set(as(alice.key))
      .send({ status: 'revoked' })
      .expect(200);
    const gone = await t.http.get(`/api/skills/${doomed.id}/download`).set(as(alice.key));
    expectError(gone, 410, 'VERSION_REVOKED');
    expect(gone.headers.location).toBeUndefined();
    // Admins still read a revoked version's bytes.
    expect((await t.http.get(`/api/skills/${doomed.id}/download`).set(as(ADMIN_KEY))).status).toBe(302);
    const after = (await t.http.get('/api/metrics').set(as(ADMIN_KEY))).text;
    const count = (text: string, delivery: string) =>
      metric(text, 'skill_resolver_downloads_total', `delivery="${delivery}",store="s3"`);
    expect(count(after, 'redirect') - count(before, 'redirect')).toBe(2);
    expect(count(after, 'stream') - count(before, 'stream')).toBe(1);
  });

  it('reads a single file with one ranged request to the store', async () => {
    const bytes = randomBytes(64 * 1024);
    const many = await publishSkill(t, alice, 'many-files', {}, { files: { 'a.bin': bytes, 'b.md': '# b\n' } });
    const scrape = async () =>
      metric(
        (await t.http.get('/api/metrics').set(as(ADMIN_KEY))).text,
        'skill_resolver_store_request_duration_seconds_count',
        'store="s3",operation="get_range"',
      );
    const before = await scrape();
    const res = await t.http.get(`/api/skills/${many.id}/files/a.bin`).set(as(alice.key)).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect((res.body as Buffer).equals(bytes)).toBe(true);
    expect((await scrape()) - before).toBe(1);
  });

  it('never serves bytes the store changed: a 500 before the answer for a package, a cut answer for a file', async () => {
    const victim = await publishSkill(t, alice, 'victim', {}, { files: { 'big.bin': randomBytes(300 * 1024) } });
    const hash = victim.latest_version.content_hash;
    const original = (
      await t.http.get(`/api/skills/${victim.id}/download?redirect=false`).set(as(alice.key)).buffer(true).parse(binary)
    ).body as Buffer;
    const tampered = Buffer.from(original);
    tampered.fill(0xee, 200_000, 200_004);
    s3.overwrite(`registry/${packageKey(hash)}`, tampered);

    const res = await t.http.get(`/api/skills/${victim.id}/download?redirect=false`).set(as(alice.key));
    expectError(res, 500, 'INTERNAL');
    expect(JSON.stringify(res.body)).not.toContain(packageKey(hash));
    expect(t.logs.some((l) => l.includes('answered other bytes'))).toBe(true);
    const file = await t.http
      .get(`/api/skills/${victim.id}/files/big.bin`)
      .set(as(alice.key))
      .buffer(true)
      .parse(binary)
      .then(
        (r) => ({
          complete: (r.body as Buffer).length === Number(r.headers['content-length']),
          same: createHash('sha256')
            .update(r.body as Buffer)
            .digest('hex'),
        }),
        (err: Error) => ({ error: err.message }),
      );
    expect(file).not.toEqual(expect.objectContaining({ complete: true }));
  });
});

describe('downloads under other settings', () => {
  it('DOWNLOAD_REDIRECT=stream streams; S3_PUBLIC_ENDPOINT signs for the host sandboxes reach; PRESIGN_TTL_SECONDS sets the expiry', async () => {
    const s3 = await startS3Server();
    const streaming = await startTestApp({ BLOB_STORE: 's3', ...s3.env('registry/'), DOWNLOAD_REDIRECT: 'stream' });
    const signing = await startTestApp({
      BLOB_STORE: 's3',
      ...s3.env('registry/'),
      S3_PUBLIC_ENDPOINT: 'https://files.example.com',
      PRESIGN_TTL_SECONDS: '1',
    });
    try {
      for (const app of [streaming, signing]) {
        const owner = await createUser(app, app === streaming ? 'streaming-owner' : 'signing-owner');
        const published = await publishSkill(app, owner, app === streaming ? 'streamed' : 'signed');
        const res = await app.http.get(`/api/skills/${published.id}/download`).set(as(owner.key));
        if (app === streaming) {
          expect(res.status).toBe(200);
        } else {
          expect(res.status).toBe(302);
          const url = new URL(res.headers.location);
          expect(url.origin).toBe('https://files.example.com');
          expect(url.searchParams.get('X-Amz-Expires')).toBe('1');
        }
      }
    } finally {
      await streaming.close();
      await signing.close();
      await s3.close();
    }
  });
});

describe('a package store that stops answering', () => {
  it('makes what needs it answer 503 STORAGE_UNAVAILABLE within the limits, storing nothing; redirects need no store request', async () => {
    const s3 = await startS3Server();
    const proxy = await startHangingProxy(s3.endpoint);
    const secret = 'a-secret-never-logged-0123456789';
    const t = await startTestApp({
      BLOB_STORE: 's3',
      ...s3.env(),
      S3_ENDPOINT: proxy.endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: secret,
      DB_STATEMENT_TIMEOUT_MS: '800',
    });
    const dbRows = () =>
      withClient(t.db.url, async (c) => ({
        skills: Number((await c.query('SELECT count(*) FROM skills')).rows[0].count),
        versions: Number((await c.query('SELECT count(*) FROM skill_versions')).rows[0].count),
      }));
    try {
      const bob = await createUser(t, 'bob');
      const kept = await publishSkill(t, bob, 'kept');
      proxy.hang(true);
      const before = await dbRows();

      const timed = async (work: () => Promise<unknown>) => {
        const started = Date.now();
        const result = await work();
        return { result, ms: Date.now() - started };
      };
      const publish = await timed(() =>
        t.http.post('/api/skills').set(as(bob.key)).attach('file', skillZip('stalled'), 'skill.zip'),
      );
      expectError(publish.result as request.Response, 503, 'STORAGE_UNAVAILABLE');
      expect(publish.ms).toBeLessThan(5_000);
      expect(await dbRows()).toEqual(before);

      const stream = await timed(() => t.http.get(`/api/skills/${kept.id}/download?redirect=false`).set(as(bob.key)));
      expectError(stream.result as request.Response, 503, 'STORAGE_UNAVAILABLE');
      expect(stream.ms).toBeLessThan(5_000);
      const file = await timed(() => t.http.get(`/api/skills/${kept.id}/files/SKILL.md`).set(as(bob.key)));
      expectError(file.result as request.Response, 503, 'STORAGE_UNAVAILABLE');
      // Signing is local: a redirect is still answered (the sandbox then meets the store itself).
      expect((await t.http.get(`/api/skills/${kept.id}/download`).set(as(bob.key))).status).toBe(302);

      const ready = await timed(() => t.http.get('/api/health/ready'));
      expectError(ready.result as request.Response, 503, 'STORAGE_UNAVAILABLE');
      expect(ready.ms).toBeLessThan(2_000);

      proxy.hang(false);
      expect((await t.http.get('/api/health/ready')).status).toBe(200);
      expect((await t.http.get(`/api/skills/${kept.id}/download?redirect=false`).set(as(bob.key))).status).toBe(200);
      for (const line of t.logs) expect(line).not.toContain(secret);
    } finally {
      await t.close();
      await proxy.close();
      await s3.close();
    }
  });
});
