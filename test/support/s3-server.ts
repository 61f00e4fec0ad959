// A real S3-protocol server for the tests: s3rver, on a free loopback port, over a folder of its
// own, with one bucket. It answers the S3 API (keys, ranges, listing, presigned URLs and their
// expiry, response header overrides) but checks no signature and no checksum: what the service
// signs is checked against the AWS SDK's own signer instead (test/e2e/blob-stores.spec.ts).
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { connect, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver's own account. */
export const S3RVER_KEY = 'S3RVER';
export const S3_BUCKET = 'skills';

export interface S3Server {
  endpoint: string;
  /** The settings of the service for this server (`S3_*`), with `prefix` as S3_PREFIX. */
  env(prefix?: string): Record<string, string>;
  /** Writes other bytes under `key` behind the service's back (a store that lies). */
  overwrite(key: string, bytes: Buffer): void;
  /** Deletes the object under `key` behind the service's back. */
  remove(key: string): void;
  /** Makes the object under `key` look written `ageMs` ago. */
  age(key: string, ageMs: number): void;
  close(): Promise<void>;
}

function objectPath(directory: string, key: string): string {
  const parts = key.split('/');
  const name = parts.pop()!;
  return join(directory, S3_BUCKET, ...parts, `${name}._S3rver_object`);
}

export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'sr-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: S3_BUCKET }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: (prefix = '') => ({
      S3_BUCKET,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_KEY,
      S3_SECRET_ACCESS_KEY: S3RVER_KEY,
      S3_FORCE_PATH_STYLE: 'true',
      ...(prefix ? { S3_PREFIX: prefix } : {}),
    }),
    overwrite: (key, bytes) => writeFileSync(objectPath(directory, key), bytes),
    remove: (key) => {
      for (const suffix of ['', '.md5']) rmSync(`${objectPath(directory, key)}${suffix}`, { force: true });
      rmSync(objectPath(directory, key).replace(/object$/, 'metadata.json'), { force: true });
    },
    age: (key, ageMs) => {
      const then = new Date(Date.now() - ageMs);
      utimesSync(objectPath(directory, key), then, then);
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A TCP proxy to `endpoint` that can be told to hang: connections made meanwhile are accepted and never answered. */
export async function startHangingProxy(
  endpoint: string,
): Promise<{ endpoint: string; hang(on: boolean): void; close(): Promise<void> }> {
  const target = new URL(endpoint);
  const sockets = new Set<Socket>();
  let hanging = false;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (hanging) return;
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    hang: (on) => {
      hanging = on;
      // Kept-alive connections would still pass: from now on every request meets the hang.
      if (on) for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A server that accepts connections and never answers: a store that hangs. */
export async function startSilentServer(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
