// Making a store of a kind from the settings: the service's configured store, and the target of
// `npm run blobs -- copy --to <kind>` (docs/storage.md#copying-between-stores).
import type { DataSource } from 'typeorm';
import type { BlobStoreKind, DatabaseLimits, StorageSettings } from '../config/app-config';
import type { BlobStore } from './blob-store';
import { DatabaseBlobStore } from './database-blob-store';
import { FsBlobStore } from './fs-blob-store';
import { S3BlobStore } from './s3-blob-store';

export class StoreSettingsError extends Error {}

/** An open store of `kind`; `db` holds the `database` store's table. */
export async function openBlobStore(
  kind: BlobStoreKind,
  settings: StorageSettings,
  db: DataSource,
  limits: DatabaseLimits,
): Promise<BlobStore> {
  switch (kind) {
    case 'database':
      return new DatabaseBlobStore(db);
    case 'fs': {
      const store = new FsBlobStore(settings.dir);
      await store.open();
      return store;
    }
    case 's3':
      if (!settings.s3) throw new StoreSettingsError('the s3 store needs S3_BUCKET (and the other S3_ settings)');
      return new S3BlobStore(settings.s3, { connectMs: limits.connectMs, requestMs: limits.statementMs });
  }
}
