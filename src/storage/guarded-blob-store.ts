// The store as features see it (docs/storage.md#when-the-store-does-not-answer): every request
// timed and counted by operation, and bounded: a store that fails or does not answer within the
// request limit makes the caller's request answer 503 STORAGE_UNAVAILABLE, never hang. What is
// logged of a failure is the operation and the error's kind, never a key, a URL or a credential.
import type { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors/domain-error';
import { isDatabaseUnavailable } from '../common/errors/pg-errors';
import type { AppLogger } from '../common/logging/app-logger';
import type { MetricsService } from '../common/metrics/metrics.service';

/** What the guard reports each request to (the service's metrics; nothing in the blobs command). */
export type StoreObserver = Pick<MetricsService, 'storeRequest'>;
import type { BlobStore, ResponseHeaders, StoredObject } from './blob-store';

export type StoreOperation = 'put' | 'get' | 'get_range' | 'list' | 'delete' | 'probe';

class StoreTimeout extends Error {
  constructor() {
    super('no answer within the request limit');
    this.name = 'StoreTimeout';
  }
}

/** What a failure may say in a log line: its kind, never its message (which may hold a path or a key). */
function failureFields(err: unknown): Record<string, unknown> {
  const e = err as { name?: unknown; code?: unknown; Code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  return {
    error: typeof e?.name === 'string' ? e.name : 'Error',
    ...(typeof e?.code === 'string' ? { code: e.code } : typeof e?.Code === 'string' ? { code: e.Code } : {}),
    ...(typeof e?.$metadata?.httpStatusCode === 'number' ? { status: e.$metadata.httpStatusCode } : {}),
  };
}

export class GuardedBlobStore implements BlobStore {
  readonly kind: BlobStore['kind'];
  readonly presign?: BlobStore['presign'];

  constructor(
    readonly inner: BlobStore,
    private readonly deadlineMs: number,
    private readonly metrics: StoreObserver,
    private readonly logger: AppLogger,
  ) {
    this.kind = inner.kind;
    // Signing is local (no request to the store): passed through as it is.
    if (inner.presign)
      this.presign = (key: string, headers: ResponseHeaders, ttl: number) => inner.presign!(key, headers, ttl);
  }

  private async run<T>(operation: StoreOperation, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const attempt = work();
    // Once the deadline has answered, the attempt's own end is nobody's concern.
    attempt.catch(() => undefined);
    try {
      const result = await Promise.race([
        attempt,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreTimeout()), this.deadlineMs);
        }),
      ]);
      this.metrics.storeRequest(this.kind, operation, (performance.now() - started) / 1000, false);
      return result;
    } catch (err) {
      this.metrics.storeRequest(this.kind, operation, (performance.now() - started) / 1000, true);
      // The database store's failures are the database's, and answer as such.
      if (this.kind === 'database' && isDatabaseUnavailable(err)) throw err;
      this.logger.write('error', 'package store request failed', {
        store: this.kind,
        operation,
        ...failureFields(err),
      });
      throw new DomainError(
        'STORAGE_UNAVAILABLE',
        err instanceof StoreTimeout ? 'The package store did not answer in time' : 'The package store failed',
      );
    } finally {
      clearTimeout(timer);
    }
  }

  putIfAbsent(key: string, data: Buffer, tx?: EntityManager): Promise<boolean> {
    return this.run('put', () => this.inner.putIfAbsent(key, data, tx));
  }

  get(key: string): Promise<Buffer | null> {
    return this.run('get', () => this.inner.get(key));
  }

  getRange(key: string, offset: number, length: number): Promise<Readable | null> {
    return this.run('get_range', () => this.inner.getRange(key, offset, length));
  }

  /** Each page is one request, bounded on its own. */
  async *list(prefix: string): AsyncIterable<StoredObject[]> {
    const iterator = this.inner.list(prefix)[Symbol.asyncIterator]();
    for (;;) {
      const next = await this.run('list', () => iterator.next());
      if (next.done) return;
      yield next.value;
    }
  }

  delete(key: string, tx?: EntityManager): Promise<void> {
    return this.run('delete', () => this.inner.delete(key, tx));
  }

  probe(): Promise<void> {
    return this.run('probe', () => this.inner.probe());
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
