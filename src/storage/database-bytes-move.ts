// At boot, package bytes that a release before the package stores left in the database are moved
// to the configured store when it is not the database (docs/storage.md#upgrading): each package is
// hash-checked, written under its content address (or, found there already, read back and
// checked), and only then deleted from the table, so a move cut short resumes at the next boot and
// loses nothing. Bytes that do not hash to their address, in the table or in the store, stay in the
// table (`npm run blobs -- verify` names them).
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppLogger } from '../common/logging/app-logger';
import { packageKey } from './blob-keys';
import { BLOB_STORE, BlobStore } from './blob-store';

const CONTENT_HASH = /^sha256:[0-9a-f]{64}$/;

function sha256Of(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

export interface MoveReport {
  moved: number;
  bytes: number;
  /** Rows left in the database: their bytes, or the store's, do not hash to their address. */
  damaged: number;
}

@Injectable()
export class DatabaseBytesMove {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(BLOB_STORE) private readonly store: BlobStore,
    private readonly logger: AppLogger,
  ) {}

  /** Nothing to do with the `database` store, or once the table is empty (every later boot: one statement). */
  async run(): Promise<MoveReport> {
    const report: MoveReport = { moved: 0, bytes: 0, damaged: 0 };
    if (this.store.kind === 'database') return report;
    let after = '';
    for (;;) {
      // One package in memory at a time, whatever the table holds.
      const rows: Array<{ content_hash: string }> = await this.db.query(
        'SELECT content_hash FROM skill_blobs WHERE content_hash > $1 ORDER BY content_hash LIMIT 100',
        [after],
      );
      if (rows.length === 0) break;
      for (const { content_hash: hash } of rows) await this.moveOne(hash, report);
      after = rows[rows.length - 1].content_hash;
    }
    if (report.moved > 0) {
      // Gives the table's space back (an embedded database's data folder shrinks by the bytes moved).
      await this.db.query('VACUUM FULL skill_blobs');
      this.logger.write('info', 'package bytes moved from the database to the package store', {
        store: this.store.kind,
        packages: report.moved,
        bytes: report.bytes,
      });
    }
    if (report.damaged > 0) {
      this.logger.write(
        'error',
        "packages left in the database: their bytes, or the store's, do not match their hash",
        {
          packages: report.damaged,
          see: 'npm run blobs -- verify',
        },
      );
    }
    return report;
  }

  private async moveOne(hash: string, report: MoveReport): Promise<void> {
    const [row] = await this.db.query<Array<{ data: Buffer }>>('SELECT data FROM skill_blobs WHERE content_hash = $1', [
      hash,
    ]);
    if (!row) return;
    if (!CONTENT_HASH.test(hash) || sha256Of(row.data) !== hash) {
      report.damaged++;
      return;
    }
    if (!(await this.store.putIfAbsent(packageKey(hash), row.data))) {
      const there = await this.store.get(packageKey(hash));
      if (!there || sha256Of(there) !== hash) {
        report.damaged++;
        return;
      }
    }
    await this.db.query('DELETE FROM skill_blobs WHERE content_hash = $1', [hash]);
    report.moved++;
    report.bytes += row.data.length;
  }
}
