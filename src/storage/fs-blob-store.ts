// Package bytes in a folder (`BLOB_DIR`): each object is written to a temporary name beside its
// key, fsynced, renamed into place and its folder fsynced, so a key that exists holds complete
// bytes even after a crash or power loss. Temporary names stay under `packages/`, where the
// garbage sweep collects what a crash left (docs/storage.md#fs).
import { randomBytes } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import type { BlobStore, StoredObject } from './blob-store';

/** Keys are paths of plain segments: nothing can name a file outside the folder. */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

export class FsBlobStore implements BlobStore {
  readonly kind = 'fs' as const;

  constructor(private readonly root: string) {}

  /** Makes the folder (and its parents); the boot calls it before the first request. */
  async open(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }

  private path(key: string): string {
    if (!KEY.test(key)) throw new Error('not a storage key');
    return join(this.root, ...key.split('/'));
  }

  async putIfAbsent(key: string, data: Buffer): Promise<boolean> {
    const path = this.path(key);
    if (await exists(path)) return false;
    const folder = dirname(path);
    await mkdir(folder, { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const file = await open(temporary, 'wx', 0o644);
    try {
      await file.writeFile(data);
      await file.sync();
    } catch (err) {
      await file.close();
      await unlink(temporary).catch(() => undefined);
      throw err;
    }
    await file.close();
    // Two writers of one key write the same bytes (the key is their hash): either rename wins.
    await rename(temporary, path);
    await syncFolder(folder);
    return true;
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Readable | null> {
    const path = this.path(key);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    if (offset + length > size) return Readable.from(failing('the stored object is shorter than the range asked for'));
    if (length === 0) return Readable.from([]);
    const out = exactly(length);
    // pipeline() ends `out` with the read's error, if any.
    pipeline(createReadStream(path, { start: offset, end: offset + length - 1 }), out, () => undefined);
    return out;
  }

  /** A page per folder (a folder holds the keys of one first byte of their hash). */
  async *list(prefix: string): AsyncIterable<StoredObject[]> {
    const start = join(this.root, ...prefix.split('/').filter(Boolean));
    yield* this.walk(start, prefix);
  }

  private async *walk(folder: string, prefix: string): AsyncIterable<StoredObject[]> {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    const page: StoredObject[] = [];
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        yield* this.walk(path, prefix);
      } else if (entry.isFile()) {
        const key = relative(this.root, path).split(sep).join('/');
        if (!key.startsWith(prefix)) continue;
        // Gone meanwhile (deleted, or a temporary name renamed): not listed.
        const info = await stat(path).catch(() => null);
        if (info) page.push({ key, bytes: info.size, modifiedAt: info.mtime });
      }
    }
    if (page.length) yield page;
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async probe(): Promise<void> {
    await access(this.root, constants.R_OK | constants.W_OK);
  }

  async close(): Promise<void> {}
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/** A rename is durable once its folder is: fsync the folder (some systems refuse to; then it already is). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
}

async function* failing(message: string): AsyncGenerator<Buffer> {
  yield* [];
  throw new Error(message);
}

/** Passes the stream on and fails it when it ends short of `length` bytes (a file cut meanwhile). */
function exactly(length: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      callback(seen === length ? null : new Error('the stored object is shorter than the range asked for'));
    },
  });
}
