// The package store's settings (docs/configuration.md#package-storage) and its keys
// (docs/storage.md#keys): defaults, values refused at boot, secrets masked, content addresses.
import { join, resolve } from 'node:path';
import { ConfigError, configSecrets, loadConfig } from '../../src/config/app-config';
import { contentHashOfKey, packageKey } from '../../src/storage/blob-keys';

const HEX = 'ab'.repeat(32);

describe('package store settings', () => {
  it('default to the database with a server, a folder in DATA_DIR without one, redirects for a minute', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).storage).toEqual({
      store: 'database',
      dir: resolve('data', 'blobs'),
      s3: null,
      downloadRedirect: 'presigned',
      presignTtlSeconds: 60,
      gcGraceHours: 24,
      gcIntervalMinutes: 60,
    });
    expect(loadConfig({ DATA_DIR: '/srv/sr' }).storage).toEqual(
      expect.objectContaining({ store: 'fs', dir: join('/srv/sr', 'blobs') }),
    );
    expect(loadConfig({ BLOB_DIR: '/mnt/packages' }).storage.dir).toBe('/mnt/packages');
  });

  it('read the S3 settings whenever S3_BUCKET is set, with a prefix ending in a slash', () => {
    const config = loadConfig({
      BLOB_STORE: 's3',
      S3_BUCKET: 'skills',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      S3_SECRET_ACCESS_KEY: 'secret-of-the-store',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: 'team-a/registry',
      S3_PUBLIC_ENDPOINT: 'https://files.example.com',
      DOWNLOAD_REDIRECT: 'stream',
      PRESIGN_TTL_SECONDS: '3600',
      BLOB_GC_INTERVAL_MINUTES: '0',
    });
    expect(config.storage).toEqual(
      expect.objectContaining({
        store: 's3',
        downloadRedirect: 'stream',
        presignTtlSeconds: 3600,
        gcIntervalMinutes: 0,
        s3: {
          bucket: 'skills',
          region: 'us-east-1',
          endpoint: 'http://minio:9000',
          accessKeyId: 'AKIAEXAMPLE',
          secretAccessKey: 'secret-of-the-store',
          forcePathStyle: true,
          prefix: 'team-a/registry/',
          publicEndpoint: 'https://files.example.com',
        },
      }),
    );
    expect(configSecrets(config)).toEqual(expect.arrayContaining(['AKIAEXAMPLE', 'secret-of-the-store']));
  });

  it.each([
    [{ BLOB_STORE: 'tape' }, 'BLOB_STORE must be one of database, fs, s3'],
    [{ BLOB_STORE: 's3' }, 'BLOB_STORE=s3 needs S3_BUCKET'],
    [{ S3_BUCKET: 'Bad_Bucket' }, 'S3_BUCKET must be a bucket name'],
    [{ S3_BUCKET: 'skills', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT must be an http:// or https:// URL'],
    [{ S3_BUCKET: 'skills', S3_ENDPOINT: 'http://user:pw@minio:9000' }, 'S3_ENDPOINT must be'],
    [{ S3_BUCKET: 'skills', S3_PUBLIC_ENDPOINT: 'https://files.example.com/path' }, 'S3_PUBLIC_ENDPOINT must be'],
    [{ S3_BUCKET: 'skills', S3_PREFIX: '../escape' }, 'S3_PREFIX must be'],
    [{ S3_BUCKET: 'skills', S3_PREFIX: 'a//b' }, 'S3_PREFIX must be'],
    [{ S3_BUCKET: 'skills', S3_PREFIX: '/absolute' }, 'S3_PREFIX must be'],
    [{ S3_BUCKET: 'skills', S3_ACCESS_KEY_ID: 'only-the-id' }, 'are set together, or neither'],
    [{ S3_BUCKET: 'skills', S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE must be true or false'],
    [{ S3_BUCKET: 'skills', S3_REGION: 'US East' }, 'S3_REGION must be a region name'],
    [{ DOWNLOAD_REDIRECT: 'proxy' }, 'DOWNLOAD_REDIRECT must be one of presigned, stream'],
    [{ PRESIGN_TTL_SECONDS: '0' }, 'PRESIGN_TTL_SECONDS must be an integer from 1 to 3600'],
    [{ PRESIGN_TTL_SECONDS: '3601' }, 'PRESIGN_TTL_SECONDS must be an integer from 1 to 3600'],
    [{ BLOB_GC_GRACE_HOURS: '-1' }, 'BLOB_GC_GRACE_HOURS must be an integer'],
    [{ BLOB_GC_INTERVAL_MINUTES: '20000' }, 'BLOB_GC_INTERVAL_MINUTES must be an integer from 0 to 10080'],
  ])('%j is refused at boot', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('package keys', () => {
  it.each([
    [`sha256:${HEX}`, `packages/sha256/ab/${HEX}.zip`],
    [`sha256:${'0'.repeat(64)}`, `packages/sha256/00/${'0'.repeat(64)}.zip`],
  ])('%s is stored under %s, and back', (hash, key) => {
    expect(packageKey(hash)).toBe(key);
    expect(contentHashOfKey(key)).toBe(hash);
  });

  it.each([`sha256:${HEX.toUpperCase()}`, `sha256:${HEX.slice(2)}`, HEX, `sha512:${HEX}`, ''])(
    '%j is not a content hash',
    (hash) => {
      expect(() => packageKey(hash)).toThrow('not a sha256 content hash');
    },
  );

  it.each([
    `packages/sha256/ab/${HEX}.zip.4f2a9c.tmp`,
    `packages/sha256/cd/${HEX}.zip`,
    `packages/sha256/ab/${HEX}`,
    `files/sha256/ab/${HEX}`,
    `prefix/packages/sha256/ab/${HEX}.zip`,
    'packages/',
  ])('%s names no package', (key) => {
    expect(contentHashOfKey(key)).toBeNull();
  });
});
