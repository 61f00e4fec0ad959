// The embedded PostgreSQL (PGlite) served on a loopback port, so TypeORM and `pg` use it like any
// server. Used when DATABASE_URL is unset; the data folder is locked while it runs. PGlite runs on
// its own thread (embedded-worker.ts).
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { acquireDataDirLock, DataDirLock } from './data-dir-lock';
import { Worker } from 'node:worker_threads';
import type { ProtocolDatabase } from './embedded-socket-server';

/**
 * An initialised, migrated cluster that `npm run build` leaves beside the built code
 * (scripts/embedded-template.ts). A new data folder starts from it instead of running initdb in
 * WebAssembly, which takes seconds and most of a gigabyte.
 */
export const EMBEDDED_TEMPLATE = join(__dirname, '..', '..', 'embedded-template.tar.gz');

/** What this service uses of a PGlite instance (its own types differ between its ESM and CJS builds). */
export interface EmbeddedDb extends ProtocolDatabase {
  close(): Promise<void>;
  dumpDataDir(compression?: 'gzip' | 'none' | 'auto'): Promise<Blob>;
}

export interface EmbeddedPostgres {
  url: string;
  /** Set when a lock left by a dead process was taken over. */
  tookOverFromPid?: number;
  /** Whether a new data folder was made from the build's template. */
  fromTemplate: boolean;
  /** The cluster as PGlite dumps it (a gzipped tar): the build's template. */
  dump(): Promise<Buffer>;
  /** Closes the database and its thread, and releases the data folder. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The data folder; omitted, the database lives in memory (tests). */
  dataDir?: string;
  /** At least the pool size: the socket server refuses connections past it. */
  maxConnections: number;
  port?: number;
  /** Start a new cluster from the build's template when there is one (default true). */
  useTemplate?: boolean;
  /** Called when the database fails or its thread ends after it started, unless stop() ended it. */
  onFailure?: (err: Error) => void;
}

function template(useTemplate: boolean): Buffer | undefined {
  return useTemplate && existsSync(EMBEDDED_TEMPLATE) ? readFileSync(EMBEDDED_TEMPLATE) : undefined;
}

const BLOCK = 512;

function tarField(header: Buffer, at: number, length: number): string {
  const raw = header.subarray(at, at + length);
  const end = raw.indexOf(0);
  return raw.toString('utf8', 0, end < 0 ? length : end);
}

/**
 * Writes the cluster of a template (PGlite's dump: a gzipped ustar archive of directories and
 * plain files, paths relative to the cluster) into `dir`. Starting PGlite once on the files costs
 * about half of what loading the dump through PGlite and starting it again does, in time and in
 * memory. False, with nothing written that matters, when the archive holds anything else: PGlite
 * loads it then.
 */
export function unpackTemplate(gzipped: Buffer, dir: string): boolean {
  const tar = gunzipSync(gzipped);
  const entries: Array<{ path: string; directory: boolean; data: Buffer }> = [];
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (tarField(header, 257, 6) !== 'ustar') return false;
    const prefix = tarField(header, 345, 155);
    const name = tarField(header, 0, 100);
    const parts = `${prefix}/${name}`.split('/').filter((p) => p !== '' && p !== '.');
    const size = parseInt(tarField(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]);
    if (!Number.isSafeInteger(size) || parts.includes('..') || !['0', '\0', '5'].includes(type)) return false;
    at += BLOCK;
    entries.push({ path: join(dir, ...parts), directory: type === '5', data: tar.subarray(at, at + size) });
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  // PostgreSQL wants its folders and files readable by their owner only.
  for (const e of entries) {
    if (e.directory) mkdirSync(e.path, { recursive: true, mode: 0o700 });
    else {
      mkdirSync(dirname(e.path), { recursive: true, mode: 0o700 });
      writeSparse(e.path, e.data);
    }
  }
  return true;
}

const ZERO_PAGE = Buffer.alloc(8192);

/** How many bytes of `data` are left once its trailing zero pages are cut off (files of whole 8 KiB pages only). */
export function withoutZeroTail(data: Buffer): number {
  if (data.length % ZERO_PAGE.length !== 0) return data.length;
  let end = data.length;
  while (end > 0 && data.subarray(end - ZERO_PAGE.length, end).equals(ZERO_PAGE)) end -= ZERO_PAGE.length;
  return end;
}

/**
 * Writes `data`, its trailing zero pages as a hole: the cluster's write-ahead log segment is 16 MiB
 * of which a few pages are written, and reading a hole gives the same zeros.
 */
function writeSparse(path: string, data: Buffer): void {
  const end = withoutZeroTail(data);
  const fd = openSync(path, 'w', 0o600);
  try {
    for (let at = 0; at < end;) at += writeSync(fd, data, at, end - at);
    if (end < data.length) ftruncateSync(fd, data.length);
  } finally {
    closeSync(fd);
  }
}

/**
 * PostgreSQL's buffer cache in the embedded cluster. PGlite's memory holds all of it from the start:
 * at PostgreSQL's 128 MB a first boot peaked at 420-455 MiB, at 64 MB at 350-365 MiB.
 */
export const SHARED_BUFFERS = '64MB';

/**
 * Opens the cluster in `pgdata`, making it first when there is none. A cluster made from the
 * template is unpacked into a side folder and renamed in, so a crash midway never leaves a half
 * cluster that a later start would try to open.
 */
export async function openPGlite(
  pgdata: string | undefined,
  useTemplate: boolean,
): Promise<{ db: EmbeddedDb; fromTemplate: boolean }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`];
  const archive = template(useTemplate);
  if (pgdata === undefined) {
    const db = await PGlite.create(archive ? { loadDataDir: new Blob([archive]), startParams } : { startParams });
    return { db: db as unknown as EmbeddedDb, fromTemplate: archive !== undefined };
  }
  const parent = dirname(pgdata);
  for (const name of readdirSync(parent)) {
    // Left by a start that died while unpacking; the data folder's lock says nobody else uses it.
    if (name.startsWith(`${basename(pgdata)}.partial-`)) rmSync(join(parent, name), { recursive: true, force: true });
  }
  const fresh = !existsSync(join(pgdata, 'PG_VERSION'));
  if (fresh && archive) {
    const partial = `${pgdata}.partial-${process.pid}`;
    mkdirSync(partial, { mode: 0o700 });
    if (!unpackTemplate(archive, partial)) {
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { mode: 0o700 });
      const seed = await PGlite.create(partial, { loadDataDir: new Blob([archive]), startParams });
      await seed.close();
    }
    rmSync(pgdata, { recursive: true, force: true });
    renameSync(partial, pgdata);
  }
  mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  const db = await PGlite.create(pgdata, { startParams });
  return { db: db as unknown as EmbeddedDb, fromTemplate: fresh && archive !== undefined };
}

/** What the worker is started with. */
export interface EmbeddedWorkerData {
  pgdata: string | undefined;
  useTemplate: boolean;
  maxConnections: number;
  port: number;
}

export type ToWorker = { type: 'dump' } | { type: 'stop' };
export type FromWorker =
  | { type: 'ready'; port: number; fromTemplate: boolean }
  | { type: 'dump'; data: ArrayBuffer }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

const WORKER = join(__dirname, 'embedded-worker.js');

/**
 * Starts the embedded database on its own thread (embedded-worker.ts) and answers once it serves.
 * The data folder's lock is taken here, before the thread starts, so a folder in use fails at once.
 * The thread starts synchronously: a caller that loads its modules before awaiting overlaps the two.
 */
export function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  let lock: DataDirLock | undefined;
  try {
    if (options.dataDir) lock = acquireDataDirLock(options.dataDir);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  const data: EmbeddedWorkerData = {
    pgdata: options.dataDir ? join(options.dataDir, 'pgdata') : undefined,
    useTemplate: options.useTemplate ?? true,
    maxConnections: options.maxConnections,
    port: options.port ?? 0,
  };
  const worker = new Worker(WORKER, { workerData: data });
  let stopping = false;
  let dumping: { resolve: (data: Buffer) => void; reject: (err: Error) => void } | undefined;
  let failed: (err: Error) => void = () => undefined;
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  void exited.then(() => lock?.release());
  return new Promise<EmbeddedPostgres>((resolve, reject) => {
    failed = reject;
    worker.once('error', (err) => failed(err));
    void exited.then((code) => failed(new Error(`the embedded database stopped (thread exit ${code})`)));
    worker.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'ready':
          failed = (err) => options.onFailure?.(err);
          return resolve({
            url: `postgresql://postgres@127.0.0.1:${message.port}/postgres`,
            tookOverFromPid: lock?.tookOverFromPid,
            fromTemplate: message.fromTemplate,
            dump: () =>
              new Promise<Buffer>((resolve, reject) => {
                dumping = { resolve, reject };
                worker.postMessage({ type: 'dump' } satisfies ToWorker);
              }),
            stop: async () => {
              if (!stopping) {
                stopping = true;
                failed = () => undefined;
                worker.postMessage({ type: 'stop' } satisfies ToWorker);
              }
              await exited;
            },
          });
        case 'dump':
          dumping?.resolve(Buffer.from(message.data));
          dumping = undefined;
          return undefined;
        case 'failed': {
          const err = new Error(`the embedded database failed: ${message.message}`);
          // A dump that failed fails the dump; anything else fails the database.
          if (dumping) dumping.reject(err);
          else failed(err);
          dumping = undefined;
          return undefined;
        }
        case 'stopped':
          return undefined;
      }
    });
  });
}
