// Copying the referenced packages from one store to another, and verifying a store
// (docs/storage.md#copying-between-stores): every package a version refers to (a purged version
// refers to none), each read, hash-checked and written under its content address unless there
// already, in which case the copy there is read back and checked. Run twice, a copy writes nothing
// the second time; cut short, it resumes. Used by `npm run blobs`.
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { packageKey } from '../storage/blob-keys';
import type { BlobStore } from '../storage/blob-store';

/** Packages read at once. */
const CONCURRENCY = 8;
const PAGE = 200;

export interface StoreReport {
  /** Referenced packages looked at. */
  packages: number;
  bytes: number;
  /** Written to the target (a copy), or found there with the right bytes. */
  copied: number;
  present: number;
  /** Keys missing from the store read. */
  missing: string[];
  /** Keys whose bytes do not hash to them (in the store read, or already in the target). */
  damaged: string[];
}

function sha256Of(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The content hashes versions refer to, a page at a time, in order. */
async function* referenced(db: DataSource): AsyncIterable<string[]> {
  let after = '';
  for (;;) {
    const rows = await db.query<Array<{ content_hash: string }>>(
      `SELECT DISTINCT content_hash FROM skill_versions
        WHERE bytes_purged_at IS NULL AND content_hash > $1 ORDER BY content_hash LIMIT ${PAGE}`,
      [after],
    );
    if (rows.length === 0) return;
    yield rows.map((r) => r.content_hash);
    after = rows[rows.length - 1].content_hash;
  }
}

async function inBatches(hashes: string[], work: (hash: string) => Promise<void>): Promise<void> {
  for (let i = 0; i < hashes.length; i += CONCURRENCY) {
    await Promise.all(hashes.slice(i, i + CONCURRENCY).map(work));
  }
}

function emptyReport(): StoreReport {
  return { packages: 0, bytes: 0, copied: 0, present: 0, missing: [], damaged: [] };
}

/** `to` omitted: only checks `from` (verify). `progress` is told the running report after each page. */
export async function copyPackages(
  db: DataSource,
  from: BlobStore,
  to: BlobStore | null,
  progress: (report: StoreReport) => void = () => undefined,
): Promise<StoreReport> {
  const report = emptyReport();
  for await (const hashes of referenced(db)) {
    await inBatches(hashes, async (hash) => {
      const key = packageKey(hash);
      report.packages++;
      const data = await from.get(key);
      if (!data) {
        report.missing.push(key);
        return;
      }
      report.bytes += data.length;
      if (sha256Of(data) !== hash) {
        report.damaged.push(key);
        return;
      }
      if (!to) return;
      if (await to.putIfAbsent(key, data)) {
        report.copied++;
        return;
      }
      const there = await to.get(key);
      if (there && sha256Of(there) === hash) report.present++;
      else report.damaged.push(`${key} (in the target)`);
    });
    progress(report);
  }
  report.missing.sort();
  report.damaged.sort();
  return report;
}
