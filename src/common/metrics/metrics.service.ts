// The service's Prometheus metrics (docs/operations.md#metrics), in a registry of this app instance (never the
// global default one), so several apps in one process keep their own counts.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

const PREFIX = 'skill_resolver_';

/** The route label of requests that matched no route (404s, and requests refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** `missing`: no credentials on a route that needs them; `invalid`: wrong, revoked or expired ones. */
export type AuthFailureReason = 'missing' | 'invalid';

/** The limits of docs/operations.md#rate-limits: failed authentications per address, uploads per user, inspections per replica. */
export type RateLimitReason = 'auth_failures' | 'uploads' | 'inspections';
const RATE_LIMIT_REASONS: readonly RateLimitReason[] = ['auth_failures', 'uploads', 'inspections'];

/** How a download's bytes reached the client: a 302 to the store, or through the service. */
export type DownloadDelivery = 'redirect' | 'stream';

/** Seconds; uploads and slow clients reach the 120 s request limit. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly cacheLookups: Counter<'cache' | 'result'>;
  /**
   * The resolution cache's lookups since the counter was last read: one is counted on every
   * request for a task's skills, 304s included, and a labelled inc() hashes its labels each time.
   */
  private readonly resolutionLookups = { hit: 0, miss: 0 };
  private readonly packagesRejected: Counter<'code'>;
  private readonly authFailures: Counter<'reason'>;
  private readonly rateLimitedRequests: Counter<'reason'>;
  private readonly downloads: Counter<'delivery' | 'store'>;
  private readonly storeDuration: Histogram<'store' | 'operation'>;
  private readonly storeErrors: Counter<'store' | 'operation'>;
  private readonly gitImports: Counter<'outcome'>;

  constructor(@InjectDataSource() db: DataSource) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requestDuration = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: `HTTP requests by method, route template (or "${UNMATCHED_ROUTE}") and status`,
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const resolutionLookups = this.resolutionLookups;
    this.cacheLookups = new Counter({
      name: `${PREFIX}cache_lookups_total`,
      help: 'Lookups in the in-memory caches, by cache and result (hit or miss)',
      labelNames: ['cache', 'result'],
      registers,
      // Before every read of the counter (a scrape): the resolution lookups counted since the last.
      collect() {
        for (const result of ['hit', 'miss'] as const) {
          if (resolutionLookups[result] > 0) this.inc({ cache: 'resolution', result }, resolutionLookups[result]);
          resolutionLookups[result] = 0;
        }
      },
    });
    this.packagesRejected = new Counter({
      name: `${PREFIX}packages_rejected_total`,
      help: 'Uploaded packages rejected as invalid, by problem code (a package counts once per code it breaks)',
      labelNames: ['code'],
      registers,
    });
    this.authFailures = new Counter({
      name: `${PREFIX}auth_failures_total`,
      help: 'Requests refused with 401: credentials missing, or wrong, revoked or expired',
      labelNames: ['reason'],
      registers,
    });
    this.rateLimitedRequests = new Counter({
      name: `${PREFIX}rate_limited_requests_total`,
      help: 'Requests refused with 429, by the limit they hit',
      labelNames: ['reason'],
      registers,
    });
    this.downloads = new Counter({
      name: `${PREFIX}downloads_total`,
      help: 'Package downloads answered with bytes, by delivery (redirect: a 302 to the store; stream: through the service) and store',
      labelNames: ['delivery', 'store'],
      registers,
    });
    this.storeDuration = new Histogram({
      name: `${PREFIX}store_request_duration_seconds`,
      help: 'Requests to the package store, by store and operation (until the answer begins)',
      labelNames: ['store', 'operation'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.storeErrors = new Counter({
      name: `${PREFIX}store_errors_total`,
      help: 'Requests to the package store that failed or did not answer in time, by store and operation',
      labelNames: ['store', 'operation'],
      registers,
    });
    this.gitImports = new Counter({
      name: `${PREFIX}git_imports_total`,
      help: 'Skills imported or updated from git, by outcome: created, versioned, unchanged, invalid, cancelled (the client went away), or the error code of a refused import',
      labelNames: ['outcome'],
      registers,
    });
    for (const result of ['hit', 'miss']) this.cacheLookups.inc({ cache: 'resolution', result }, 0);
    for (const reason of ['missing', 'invalid']) this.authFailures.inc({ reason }, 0);
    for (const reason of RATE_LIMIT_REASONS) this.rateLimitedRequests.inc({ reason }, 0);
    registerPoolGauges(db, registers);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every family. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** `route` is a route template such as `/api/skills/:id`, never a raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requestDuration.observe({ method, route, status: String(status) }, seconds);
  }

  /** A lookup of a task's resolution in the resolution cache. */
  resolutionCache(hit: boolean): void {
    this.resolutionLookups[hit ? 'hit' : 'miss']++;
  }

  /** A lookup of what a team's ghosts reach, by a resolution nobody had cached. */
  teamSkillsCache(hit: boolean): void {
    this.cacheLookups.inc({ cache: 'team_skills', result: hit ? 'hit' : 'miss' });
  }

  /** A first resolution's skills: all from the kept lookups (hit), or the skill query ran (miss). */
  skillLookupCache(hit: boolean): void {
    this.cacheLookups.inc({ cache: 'skill_lookups', result: hit ? 'hit' : 'miss' });
  }

  /** An upload refused because its inspection found these problem codes (each counted once). */
  packageRejected(codes: Iterable<string>): void {
    for (const code of new Set(codes)) this.packagesRejected.inc({ code });
  }

  authFailed(reason: AuthFailureReason): void {
    this.authFailures.inc({ reason });
  }

  /** A download answered with its bytes or a redirect to them (not a 304 or an error). */
  downloaded(delivery: DownloadDelivery, store: string): void {
    this.downloads.inc({ delivery, store });
  }

  /** One request to the package store; `failed` when it failed or did not answer in time. */
  storeRequest(store: string, operation: string, seconds: number, failed: boolean): void {
    this.storeDuration.observe({ store, operation }, seconds);
    if (failed) this.storeErrors.inc({ store, operation });
  }

  /** One skill of an import or update (`created`, `versioned`, `unchanged`, `invalid`), or a refused one (its error code). */
  gitImported(outcome: string): void {
    this.gitImports.inc({ outcome });
  }

  /** A request refused with 429 RATE_LIMITED; the rate limiter calls this once per refusal. */
  rateLimited(reason: RateLimitReason): void {
    this.rateLimitedRequests.inc({ reason });
  }
}

/** The pg pool behind TypeORM, read at scrape time. */
function registerPoolGauges(db: DataSource, registers: Registry[]): void {
  const pool = (): Pool | undefined =>
    db.isInitialized ? (db.driver as unknown as { master?: Pool }).master : undefined;
  const gauge = (name: string, help: string, read: (p: Pool) => number): void => {
    new Gauge({
      name: `${PREFIX}db_pool_${name}`,
      help,
      registers,
      collect() {
        const p = pool();
        this.set(p ? read(p) : 0);
      },
    });
  };
  gauge(
    'connections_in_use',
    'Pool connections checked out by a query or transaction',
    (p) => p.totalCount - p.idleCount,
  );
  gauge('connections_idle', 'Open pool connections waiting for work', (p) => p.idleCount);
  gauge('waiting_requests', 'Queries and transactions waiting for a pool connection', (p) => p.waitingCount);
  gauge('connections_max', 'The pool size (DB_POOL_SIZE)', (p) => p.options.max ?? 0);
}
