// Whether the database and the package store answer, each within READY_WITHIN_MS whatever they do.
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BLOB_STORE, BlobStore } from '../storage/blob-store';
import { BoundedCheck } from './bounded-check';

/**
 * docs/operations.md#when-the-database-does-not-answer: `/health/ready` answers 503 within 2 s when
 * the database or the package store does not answer (the two checks run side by side).
 */
export const READY_WITHIN_MS = 1_000;

@Injectable()
export class DatabaseProbe {
  private readonly check: BoundedCheck;

  constructor(@InjectDataSource() db: DataSource) {
    this.check = new BoundedCheck(() => db.query('SELECT 1'), READY_WITHIN_MS);
  }

  /** True when `SELECT 1` answered within the bound. */
  answers(): Promise<boolean> {
    return this.check.passes();
  }
}

@Injectable()
export class StoreProbe {
  private readonly check: BoundedCheck;

  constructor(@Inject(BLOB_STORE) readonly store: BlobStore) {
    this.check = new BoundedCheck(() => store.probe(), READY_WITHIN_MS);
  }

  /** True when the package store answered its probe (a bucket HEAD, a folder's access) within the bound. */
  answers(): Promise<boolean> {
    return this.check.passes();
  }
}
