// The garbage sweep of the package store (docs/storage.md#garbage): objects under `packages/` that
// no version refers to (a purged version refers to nothing) and that are older than
// BLOB_GC_GRACE_HOURS, so a publish between its two steps is never collected. One replica sweeps at
// a time (a PostgreSQL advisory lock held on a connection of its own); each deletion is decided
// again under the bytes lock, so a version committed meanwhile keeps its bytes. Every
// BLOB_GC_INTERVAL_MINUTES, and on POST /api/admin/blob-gc.
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { recordAudit } from '../common/audit/audit-log';
import { DomainError } from '../common/errors/domain-error';
import { AppLogger } from '../common/logging/app-logger';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SkillBytesRepository } from '../skills/skill-bytes.repository';
import { contentHashOfKey, PACKAGES_ROOT } from '../storage/blob-keys';
import { SWEEP_LOCK } from '../storage/blob-locks';
import { BLOB_STORE, BlobStore, StoredObject } from '../storage/blob-store';

/** At most this many objects go per sweep (the next one goes on): a bounded answer and bounded work. */
const MAX_SWEPT = 10_000;
/** Keys named in the audit event (the count and bytes cover all). */
const AUDITED_KEYS = 100;

export interface SweepResult {
  dry_run: boolean;
  items: Array<{ key: string; bytes: number }>;
  bytes: number;
}

@Injectable()
export class BlobGcService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  /** The sweep under way in this process (the advisory lock keeps other replicas out). */
  private sweeping: Promise<SweepResult> | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(BLOB_STORE) private readonly store: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bytes: SkillBytesRepository,
    private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    const minutes = this.config.storage.gcIntervalMinutes;
    if (minutes === 0) return;
    this.timer = setInterval(() => void this.scheduled(), minutes * 60_000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async scheduled(): Promise<void> {
    try {
      const result = await this.sweep(false, false);
      if (result.items.length) {
        this.logger.write('info', 'garbage sweep of the package store', {
          objects: result.items.length,
          bytes: result.bytes,
        });
      }
    } catch (err) {
      // Another replica sweeping, or a store or database down: the next interval tries again.
      if (err instanceof DomainError && err.code === 'IN_USE') return;
      this.logger.write('warn', 'garbage sweep failed', {
        error: err instanceof DomainError ? err.code : (err as Error).name,
      });
    }
  }

  /**
   * Deletes (or, `dryRun`, lists) what no version refers to past the grace period. 409 IN_USE while
   * another sweep runs here or on another replica. `auditEmpty`: a sweep asked for is audited even
   * when it deleted nothing.
   */
  sweep(dryRun: boolean, auditEmpty = true): Promise<SweepResult> {
    if (this.sweeping) return Promise.reject(sweepRunning());
    this.sweeping = this.locked(() => this.collect(dryRun)).finally(() => {
      this.sweeping = null;
    });
    return this.sweeping.then(async (result) => {
      if (!dryRun && (auditEmpty || result.items.length)) await this.audit(result);
      return result;
    });
  }

  private async locked<T>(work: () => Promise<T>): Promise<T> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      const [row] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [SWEEP_LOCK])) as Array<{
        locked: boolean;
      }>;
      if (!row.locked) throw sweepRunning();
      try {
        return await work();
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  private async collect(dryRun: boolean): Promise<SweepResult> {
    const before = new Date(Date.now() - this.config.storage.gcGraceHours * 3_600_000);
    const result: SweepResult = { dry_run: dryRun, items: [], bytes: 0 };
    for await (const page of this.store.list(PACKAGES_ROOT)) {
      const old = page.filter((o) => o.modifiedAt < before);
      const referenced = await this.referenced(old);
      for (const object of old) {
        if (result.items.length >= MAX_SWEPT) return result;
        const hash = contentHashOfKey(object.key);
        if (hash && referenced.has(hash)) continue;
        if (!dryRun) {
          // A package key is decided again under the bytes lock; anything else (a temporary file a
          // crash left) no version can refer to.
          if (hash) {
            if (!(await this.bytes.deleteIfUnreferenced(hash, this.store))) continue;
          } else {
            await this.store.delete(object.key);
          }
        }
        result.items.push({ key: object.key, bytes: object.bytes });
        result.bytes += object.bytes;
      }
    }
    return result;
  }

  /** The hashes among `objects` that a version (not purged) refers to. */
  private async referenced(objects: StoredObject[]): Promise<Set<string>> {
    const hashes = objects.map((o) => contentHashOfKey(o.key)).filter((h): h is string => h !== null);
    if (hashes.length === 0) return new Set();
    const rows = await this.db.query<Array<{ content_hash: string }>>(
      `SELECT DISTINCT content_hash FROM skill_versions WHERE content_hash = ANY($1) AND bytes_purged_at IS NULL`,
      [hashes],
    );
    return new Set(rows.map((r) => r.content_hash));
  }

  private async audit(result: SweepResult): Promise<void> {
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, {
        type: 'blob',
        verb: 'gc',
        // The store as a whole: no id of its own (docs/operations.md#audit-log).
        id: 0,
        namespace: null,
        details: {
          store: this.store.kind,
          objects: result.items.length,
          bytes: result.bytes,
          keys: result.items.slice(0, AUDITED_KEYS).map((item) => item.key),
        },
      });
    });
  }
}

function sweepRunning(): DomainError {
  return new DomainError('IN_USE', 'A garbage sweep is running (here or on another replica); try again when it ends');
}
