import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppLogger } from '../common/logging/app-logger';
import { MetricsService } from '../common/metrics/metrics.service';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { BLOB_STORE, BlobStore } from './blob-store';
import { openBlobStore } from './blob-stores';
import { DatabaseBytesMove } from './database-bytes-move';
import { GuardedBlobStore } from './guarded-blob-store';

/** Closes the store's connections when the app stops. */
class BlobStoreShutdown implements OnApplicationShutdown {
  constructor(@Inject(BLOB_STORE) private readonly store: BlobStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/**
 * The configured package store (docs/storage.md), guarded by the request limit of the database
 * (DB_STATEMENT_TIMEOUT_MS), for every feature that reads or writes package bytes.
 */
@Global()
@Module({
  providers: [
    {
      provide: BLOB_STORE,
      inject: [APP_CONFIG, getDataSourceToken(), MetricsService, AppLogger],
      useFactory: async (config: AppConfig, db: DataSource, metrics: MetricsService, logger: AppLogger) =>
        new GuardedBlobStore(
          await openBlobStore(config.storage.store, config.storage, db, config.dbLimits),
          config.dbLimits.statementMs,
          metrics,
          logger,
        ),
    },
    BlobStoreShutdown,
    DatabaseBytesMove,
  ],
  exports: [BLOB_STORE, DatabaseBytesMove],
})
export class StorageModule {}
