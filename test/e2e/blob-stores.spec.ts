// The package stores (docs/storage.md): one suite every driver passes (the database's table, a
// folder, and an S3-protocol server, s3rver, started here on loopback), then what only the S3
// driver does (its prefix, signed URLs) and what the guard around every store does with a store
// that hangs. s3rver checks neither signatures nor checksums: the URLs the service signs are
// compared with the AWS SDK's own getSignedUrl, and fetched for what the server can show (bytes,
// response headers, expiry).
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { AppLogger } from '../../src/common/logging/app-logger';
import { MetricsService } from '../../src/common/metrics/metrics.service';
import { DomainError } from '../../src/common/errors/domain-error';
import { loadConfig } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/schema/typeorm-options';
import { contentHashOfKey, packageKey, PACKAGES_ROOT } from '../../src/storage/blob-keys';
import type { BlobStore, StoredObject } from '../../src/storage/blob-store';
import { DatabaseBlobStore } from '../../src/storage/database-blob-store';
import { FsBlobStore } from '../../src/storage/fs-blob-store';
import { GuardedBlobStore } from '../../src/storage/guarded-blob-store';
import { S3BlobStore } from '../../src/storage/s3-blob-store';
import { freshDatabase, TestDatabase } from '../support/database';
import { S3_BUCKET, S3RVER_KEY, S3Server, startS3Server, startSilentServer } from '../support/s3-server';

const key = (data: Buffer): string => packageKey(`sha256:${createHash('sha256').update(data).digest('hex')}`);

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listAll(store: BlobStore, prefix = PACKAGES_ROOT): Promise<StoredObject[]> {
  const all: StoredObject[] = [];
  for await (const page of store.list(prefix)) all.push(...page);
  return all;
}

interface Harness {
  store: BlobStore;
  close(): Promise<void>;
}

/** s3rver for the whole file: each S3 harness takes a prefix of its own. */
let s3: S3Server;
let db: TestDatabase;
let dataSource: DataSource;
let prefixes = 0;

function s3Settings(prefix: string) {
  return loadConfig({ ...s3.env(prefix), BLOB_STORE: 's3' }).storage.s3!;
}

const DRIVERS: Array<[string, () => Promise<Harness>]> = [
  [
    'database',
    async () => {
      await dataSource.query('TRUNCATE skill_blobs');
      return { store: new DatabaseBlobStore(dataSource), close: () => Promise.resolve() };
    },
  ],
  [
    'fs',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sr-blobs-'));
      const store = new FsBlobStore(join(dir, 'blobs'));
      await store.open();
      return { store, close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) };
    },
  ],
  [
    's3',
    () => {
      const store = new S3BlobStore(s3Settings(`suite-${++prefixes}/`), { connectMs: 2_000, requestMs: 5_000 });
      return Promise.resolve({ store, close: () => store.close() });
    },
  ],
];

beforeAll(async () => {
  s3 = await startS3Server();
  db = await freshDatabase();
  dataSource = new DataSource(buildDataSourceOptions({ url: db.url, poolSize: 2 }));
  await dataSource.initialize();
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
  await s3?.close();
});

describe.each(DRIVERS)('the %s store', (_kind, make) => {
  let h: Harness;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.close();
  });

  it('writes a key once: the first put writes, a later one (even of other bytes) leaves it as it is', async () => {
    const data = randomBytes(3000);
    expect(await h.store.putIfAbsent(key(data), data)).toBe(true);
    expect(await h.store.putIfAbsent(key(data), data)).toBe(false);
    expect(await h.store.putIfAbsent(key(data), Buffer.from('other'))).toBe(false);
    expect(await h.store.get(key(data))).toEqual(data);
  });

  it('puts of one key at once leave one object with its bytes', async () => {
    const data = randomBytes(50_000);
    const results = await Promise.all(Array.from({ length: 6 }, () => h.store.putIfAbsent(key(data), data)));
    expect(results).toContain(true);
    expect(await h.store.get(key(data))).toEqual(data);
    expect((await listAll(h.store)).map((o) => o.key)).toEqual([key(data)]);
  });

  it('answers null for a key it does not hold', async () => {
    const missing = key(Buffer.from('never written'));
    expect(await h.store.get(missing)).toBeNull();
    expect(await h.store.getRange(missing, 0, 10)).toBeNull();
  });

  it('reads exactly the range asked for, in one request', async () => {
    const data = randomBytes(200_000);
    await h.store.putIfAbsent(key(data), data);
    // One byte at 1, not at 0: s3rver answers `bytes=0-0` with the whole object (it takes an end of 0
    // for none), which the driver refuses as more than asked for. A file's data never starts at byte
    // 0 of a zip (its local header does).
    for (const [offset, length] of [
      [1, 1],
      [0, data.length],
      [12_345, 67_890],
      [data.length - 7, 7],
      [100, 0],
    ]) {
      const range = await h.store.getRange(key(data), offset, length);
      expect((await collect(range!)).equals(data.subarray(offset, offset + length))).toBe(true);
    }
  });

  it('fails a range past the end of the object rather than answering short', async () => {
    const data = randomBytes(1000);
    await h.store.putIfAbsent(key(data), data);
    await expect(h.store.getRange(key(data), 900, 200).then((s) => s && collect(s))).rejects.toThrow();
  });

  it('lists what it holds under a prefix, with sizes and write times', async () => {
    const started = Date.now() - 2_000;
    const a = randomBytes(10);
    const b = randomBytes(2000);
    await h.store.putIfAbsent(key(a), a);
    await h.store.putIfAbsent(key(b), b);
    const listed = await listAll(h.store);
    expect(listed.map((o) => [o.key, o.bytes]).sort()).toEqual(
      [
        [key(a), 10],
        [key(b), 2000],
      ].sort(),
    );
    for (const o of listed) {
      expect(o.modifiedAt.getTime()).toBeGreaterThanOrEqual(started);
      expect(contentHashOfKey(o.key)).not.toBeNull();
    }
    expect(await listAll(h.store, `${PACKAGES_ROOT}sha256/zz/`)).toEqual([]);
  });

  it('deletes an object, and deleting one that is gone is no error', async () => {
    const data = randomBytes(100);
    await h.store.putIfAbsent(key(data), data);
    await h.store.delete(key(data));
    expect(await h.store.get(key(data))).toBeNull();
    await h.store.delete(key(data));
    expect(await listAll(h.store)).toEqual([]);
    // Written again after a delete: a new object.
    expect(await h.store.putIfAbsent(key(data), data)).toBe(true);
  });

  it('answers a readiness probe', async () => {
    await expect(h.store.probe()).resolves.toBeUndefined();
  });
});

describe('the fs store', () => {
  let dir: string;
  let store: FsBlobStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sr-blobs-'));
    store = new FsBlobStore(join(dir, 'blobs'));
    await store.open();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps each object at its key, with no temporary file left', async () => {
    const data = randomBytes(1000);
    await store.putIfAbsent(key(data), data);
    const folder = join(dir, 'blobs', ...key(data).split('/').slice(0, -1));
    expect(readdirSync(folder)).toEqual([key(data).split('/').pop()]);
  });

  it('refuses a key that could name a file outside its folder', async () => {
    for (const bad of ['../escape.zip', 'packages/../../escape.zip', '/etc/passwd', 'packages//x', '.hidden']) {
      await expect(store.putIfAbsent(bad, Buffer.from('x'))).rejects.toThrow('not a storage key');
    }
    expect(existsSync(join(dir, 'escape.zip'))).toBe(false);
  });
});

describe('the s3 store', () => {
  it('keeps every key under S3_PREFIX, and lists and deletes nothing outside it', async () => {
    const mine = new S3BlobStore(s3Settings('tenant-a/'), { connectMs: 2_000, requestMs: 5_000 });
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
    });
    try {
      const data = randomBytes(500);
      await mine.putIfAbsent(key(data), data);
      // Another tenant's object with the same key, and one beside the prefix.
      await client.send(new PutObjectCommand({ Bucket: S3_BUCKET, Key: `tenant-b/${key(data)}`, Body: 'theirs' }));
      await client.send(new PutObjectCommand({ Bucket: S3_BUCKET, Key: `tenant-a-other/x`, Body: 'x' }));
      const raw = await client.send(new GetObjectCommand({ Bucket: S3_BUCKET, Key: `tenant-a/${key(data)}` }));
      expect(Buffer.from(await raw.Body!.transformToByteArray())).toEqual(data);
      expect((await listAll(mine, '')).map((o) => o.key)).toEqual([key(data)]);
      await mine.delete(key(data));
      const theirs = await client.send(new GetObjectCommand({ Bucket: S3_BUCKET, Key: `tenant-b/${key(data)}` }));
      expect(await theirs.Body!.transformToString()).toBe('theirs');
    } finally {
      client.destroy();
      await mine.close();
    }
  });

  describe('signed download URLs', () => {
    const headers = {
      contentType: 'application/zip',
      contentDisposition: 'attachment; filename="pdf-tools-3.zip"',
      cacheControl: 'private, max-age=31536000, immutable',
    };

    it('are the URLs the AWS SDK signs for the same GetObject, for the public endpoint', async () => {
      const settings = { ...s3Settings('signed/'), publicEndpoint: 'https://files.example.com:8443' };
      const store = new S3BlobStore(settings, { connectMs: 2_000, requestMs: 5_000 });
      const sdk = new S3Client({
        region: 'us-east-1',
        endpoint: settings.publicEndpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      try {
        for (const ttl of [1, 60, 3600]) {
          const url = new URL(await store.presign(key(Buffer.from('a')), headers, ttl));
          const date = url.searchParams.get('X-Amz-Date')!;
          const signingDate = new Date(
            `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
          );
          const expected = await getSignedUrl(
            sdk,
            new GetObjectCommand({
              Bucket: S3_BUCKET,
              Key: `signed/${key(Buffer.from('a'))}`,
              ResponseContentType: headers.contentType,
              ResponseContentDisposition: headers.contentDisposition,
              ResponseCacheControl: headers.cacheControl,
            }),
            { expiresIn: ttl, signingDate },
          );
          expect(url.toString()).toBe(expected);
          // The SDK's default would add x-amz-checksum-mode, which MinIO and R2 refuse on a presigned GET.
          expect(url.searchParams.has('x-amz-checksum-mode')).toBe(false);
          expect(url.origin).toBe('https://files.example.com:8443');
          expect(url.searchParams.get('X-Amz-Expires')).toBe(String(ttl));
        }
      } finally {
        sdk.destroy();
        await store.close();
      }
    });

    it('fetch the bytes with the download headers, until they expire', async () => {
      const store = new S3BlobStore(s3Settings('fetched/'), { connectMs: 2_000, requestMs: 5_000 });
      try {
        const data = randomBytes(4000);
        await store.putIfAbsent(key(data), data);
        const url = await store.presign(key(data), headers, 1);
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer())).toEqual(data);
        expect({
          type: res.headers.get('content-type'),
          disposition: res.headers.get('content-disposition'),
          cache: res.headers.get('cache-control'),
        }).toEqual({ type: headers.contentType, disposition: headers.contentDisposition, cache: headers.cacheControl });
        // X-Amz-Date counts whole seconds: past 2 s the 1 s URL has expired.
        await new Promise((resolve) => setTimeout(resolve, 2_100));
        const late = await fetch(url);
        expect(late.status).toBe(403);
        expect(await late.text()).toContain('Request has expired');
      } finally {
        await store.close();
      }
    });
  });
});

describe('a store that does not answer', () => {
  it('fails each request within the limit with 503 STORAGE_UNAVAILABLE, naming no key or secret', async () => {
    const silent = await startSilentServer();
    const lines: string[] = [];
    const logger = new AppLogger('info', 'json', (line) => lines.push(line));
    const secret = 'a-secret-that-must-not-show-0123456789';
    const settings = {
      ...loadConfig({ ...s3.env(), S3_ENDPOINT: silent.endpoint, BLOB_STORE: 's3' }).storage.s3!,
      secretAccessKey: secret,
    };
    logger.maskSecrets([secret]);
    const inner = new S3BlobStore(settings, { connectMs: 300, requestMs: 400 });
    const metrics = new MetricsService({ isInitialized: false } as DataSource);
    const store = new GuardedBlobStore(inner, 500, metrics, logger);
    const data = Buffer.from('bytes');
    try {
      for (const attempt of [
        () => store.get(key(data)),
        () => store.getRange(key(data), 0, 3),
        () => store.putIfAbsent(key(data), data),
        () => store.probe(),
      ]) {
        const started = Date.now();
        const error = await attempt().then(
          () => null,
          (err: unknown) => err,
        );
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(error).toBeInstanceOf(DomainError);
        expect((error as DomainError).code).toBe('STORAGE_UNAVAILABLE');
        expect((error as DomainError).message).not.toContain(key(data));
      }
      const scrape = await metrics.scrape();
      expect(scrape).toMatch(/skill_resolver_store_errors_total\{store="s3",operation="get"\} 1/);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).not.toContain(secret);
        expect(line).not.toContain(key(data));
        expect(line).not.toContain(S3RVER_KEY);
      }
    } finally {
      await inner.close();
      await silent.close();
    }
  });
});
