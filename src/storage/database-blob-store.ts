// Package bytes in the database's `skill_blobs` table, by content hash: the store a deployment on
// one PostgreSQL server keeps by default (docs/storage.md#database). It holds package keys only.
import { Readable } from 'node:stream';
import type { DataSource, EntityManager } from 'typeorm';
import { contentHashOfKey, packageKey, PACKAGES_ROOT } from './blob-keys';
import type { BlobStore, StoredObject } from './blob-store';

/** One statement reads at most this much of a range, so a large file is never held whole. */
export const RANGE_SLICE_BYTES = 1024 * 1024;
/** Rows listed per statement. */
const LIST_PAGE = 1_000;

function hashOf(key: string): string {
  const hash = contentHashOfKey(key);
  if (!hash) throw new Error('the database store holds package keys only');
  return hash;
}

export class DatabaseBlobStore implements BlobStore {
  readonly kind = 'database' as const;

  constructor(private readonly db: DataSource) {}

  async putIfAbsent(key: string, data: Buffer, tx: EntityManager = this.db.manager): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `INSERT INTO skill_blobs (content_hash, data, size) VALUES ($1, $2, $3)
       ON CONFLICT (content_hash) DO NOTHING RETURNING 1`,
      [hashOf(key), data, data.length],
    );
    return rows.length > 0;
  }

  async get(key: string): Promise<Buffer | null> {
    const rows: Array<{ data: Buffer }> = await this.db.query('SELECT data FROM skill_blobs WHERE content_hash = $1', [
      hashOf(key),
    ]);
    return rows[0]?.data ?? null;
  }

  /**
   * The blob column is stored uncompressed out of line, so PostgreSQL reads only the chunks a slice
   * covers. A range up to RANGE_SLICE_BYTES is one statement; a longer one is read a slice at a time.
   */
  async getRange(key: string, offset: number, length: number): Promise<Readable | null> {
    const hash = hashOf(key);
    const slice = (from: number, bytes: number): Promise<Buffer | null> =>
      this.db
        .query('SELECT substring(data FROM $2 FOR $3) AS data FROM skill_blobs WHERE content_hash = $1', [
          hash,
          from + 1,
          bytes,
        ])
        .then((rows: Array<{ data: Buffer }>) => rows[0]?.data ?? null);
    const first = await slice(offset, Math.min(length, RANGE_SLICE_BYTES));
    if (!first) return null;
    async function* rest(): AsyncGenerator<Buffer> {
      let done = first!.length;
      yield first!;
      while (done < length) {
        const next = await slice(offset + done, Math.min(length - done, RANGE_SLICE_BYTES));
        if (!next || next.length === 0) break;
        done += next.length;
        yield next;
      }
      if (done !== length) throw new Error('the stored object is shorter than the range asked for');
    }
    return Readable.from(rest(), { objectMode: false });
  }

  async *list(prefix: string): AsyncIterable<StoredObject[]> {
    if (!PACKAGES_ROOT.startsWith(prefix) && !prefix.startsWith(PACKAGES_ROOT)) return;
    let after = '';
    for (;;) {
      const rows: Array<{ content_hash: string; size: number; created_at: Date }> = await this.db.query(
        `SELECT content_hash, size, created_at FROM skill_blobs WHERE content_hash > $1 ORDER BY content_hash LIMIT ${LIST_PAGE}`,
        [after],
      );
      const page: StoredObject[] = [];
      for (const row of rows) {
        // A row whose hash is malformed names no object a key can reach: it is not listed.
        const key = /^sha256:[0-9a-f]{64}$/.test(row.content_hash) ? packageKey(row.content_hash) : null;
        if (key?.startsWith(prefix)) page.push({ key, bytes: row.size, modifiedAt: row.created_at });
      }
      if (page.length) yield page;
      if (rows.length < LIST_PAGE) return;
      after = rows[rows.length - 1].content_hash;
    }
  }

  async delete(key: string, tx: EntityManager = this.db.manager): Promise<void> {
    await tx.query('DELETE FROM skill_blobs WHERE content_hash = $1', [hashOf(key)]);
  }

  /** The database's own readiness check covers it. */
  async probe(): Promise<void> {}

  async close(): Promise<void> {}
}
