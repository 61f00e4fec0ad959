// The environment, validated once at boot: a wrong value stops the process naming the variable.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { HostOriginRule, hostOriginRule } from '../common/http/host-origin';
import type { HttpLimits } from '../common/http/http-limits';
import { databaseUrlSecrets, LOG_LEVELS, LogFormat, LogLevel } from '../common/logging/app-logger';
import type { PackageLimits } from '../package/limits';
import { DEFAULT_MATCH_BUDGET, MAX_MATCH_BUDGET, MIN_MATCH_BUDGET } from '../policy';
import { parseGitAllowedHosts, parseGitCredentials } from './git-settings';

export interface InspectionSettings {
  /** Worker threads that inspect packages; twice as many packages may wait or run (429 past that). */
  workers: number;
  /** A package still being inspected after this is rejected, and its worker replaced. */
  deadlineMs: number;
  /** Uploads one user may have in progress at once (429 past that). */
  maxUploadsPerUser: number;
}

/** Time limits on the database (docs/operations.md#when-the-database-does-not-answer); a database that does not answer within them is 503. */
export interface DatabaseLimits {
  /** Opening one connection. */
  connectMs: number;
  /** One statement: enforced by the server (statement_timeout) and by the client, for a server that is frozen. */
  statementMs: number;
  /** Waiting for a connection of the pool (opening one included). */
  acquireMs: number;
}

/** The bounds of tool-check (docs/tool-policy.md#budget). */
export interface ToolPolicySettings {
  /** Matching steps one call may take across all its active skills; past it: POLICY_TOO_COMPLEX. */
  matchBudget: number;
  /** Versions whose compiled allowed-tools are kept; 0 compiles them on every call. */
  cacheEntries: number;
}

export const WELL_KNOWN_INDEX_MODES = ['off', 'public'] as const;
export type WellKnownIndexMode = (typeof WELL_KNOWN_INDEX_MODES)[number];

/** Where package bytes live (docs/storage.md): a table of the database, a folder, or an S3-compatible store. */
export const BLOB_STORE_KINDS = ['database', 'fs', 's3'] as const;
export type BlobStoreKind = (typeof BLOB_STORE_KINDS)[number];

/** An S3-compatible store (docs/storage.md#s3); read whenever `S3_BUCKET` is set. */
export interface S3Settings {
  bucket: string;
  region: string;
  /** Unset: AWS S3 itself. */
  endpoint?: string;
  /** Unset with the secret: the SDK's own chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  /** `''` or a path ending in `/`; every key the service writes, lists or deletes is under it. */
  prefix: string;
  /** The endpoint sandboxes reach; used only to sign download URLs. Unset: `endpoint`. */
  publicEndpoint?: string;
}

export interface StorageSettings {
  store: BlobStoreKind;
  /** The `fs` store's folder (`BLOB_DIR`, default `DATA_DIR/blobs`). */
  dir: string;
  /** Null unless `S3_BUCKET` is set (required by `BLOB_STORE=s3`). */
  s3: S3Settings | null;
  /** `presigned`: downloads from `s3` answer 302 to a signed URL; `stream`: through the service. */
  downloadRedirect: 'presigned' | 'stream';
  presignTtlSeconds: number;
  /** Unreferenced objects younger than this are never collected. */
  gcGraceHours: number;
  /** Minutes between sweeps; 0: only on request. */
  gcIntervalMinutes: number;
}

/** Imports from git (docs/configuration.md#git-imports); the shape the git remote takes. */
export interface GitImportSettings {
  /** `host[:port]` (https) or `http://host[:port]` (plain http), lower case, default ports left out; empty: imports are off. */
  allowedHosts: string[];
  /** `host[:port]` -> token, sent to that host only (HTTP Basic, the token as password). A secret. */
  credentials: Map<string, string>;
  timeoutMs: number;
  maxFetchBytes: number;
}

export interface AppConfig {
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL in `dataDir` is used. */
  databaseUrl?: string;
  dataDir: string;
  adminApiKey?: string;
  /** A bearer token that may read GET /metrics (a Prometheus server); unset: admins only. */
  metricsToken?: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  dbPoolSize: number;
  dbLimits: DatabaseLimits;
  /** Resolutions kept per reader and task until the next change; 0 turns the cache off. */
  resolutionCacheEntries: number;
  /** Teams whose ghosts, their owners and what the ghosts decide are kept until the next change; 0 turns it off. */
  teamSkillsCacheEntries: number;
  /** Skill lookups (and as many skills' facts) kept until the next change; 0 turns it off. */
  skillLookupCacheEntries: number;
  /** Task creators whose identity and own skill bindings are kept until the next change; 0 turns it off. */
  creatorCacheEntries: number;
  /** Tasks created here kept as the task statement reads them, until the next change; 0 turns it off. */
  newTaskCacheEntries: number;
  packageLimits: PackageLimits;
  inspection: InspectionSettings;
  /** Time and connection limits (docs/limits.md#time-limits) of the HTTP server. */
  http: HttpLimits;
  /** Failed authentications per client address per window before 429; 0 turns the limit off. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** Proxies in front of the service whose `X-Forwarded-For` entry is trusted (Express `trust proxy` hops); 0: none. */
  trustProxy: number;
  /** The Host and Origin headers the MCP endpoint answers: loopback, plus MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS. */
  mcpHostOrigin: HostOriginRule;
  toolPolicy: ToolPolicySettings;
  /** `public` serves every public skill anonymously at /.well-known/agent-skills/ (docs/well-known.md); `off`: 404 there. */
  wellKnownIndex: WellKnownIndexMode;
  storage: StorageSettings;
  git: GitImportSettings;
}

/**
 * Reads `.env` in the working directory when there is one: its variables fill only what the
 * environment leaves unset, so the environment always wins. True when a file was read.
 */
export function readEnvFile(path = '.env'): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (value !== 'true' && value !== 'false') {
      this.problems.push(`${name} must be true or false (got "${value}")`);
      return fallback;
    }
    return value === 'true';
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }
}

const MIB = 1024 * 1024;

export function loadConfig(env: Env = process.env): AppConfig {
  const r = new Reader(env);
  const databaseUrl = r.raw('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/[^\s]+$/.test(databaseUrl)) {
    r.problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const adminApiKey = r.raw('ADMIN_API_KEY');
  if (adminApiKey !== undefined && !/^[\x21-\x7e]{24,256}$/.test(adminApiKey)) {
    r.problems.push('ADMIN_API_KEY must be 24 to 256 printable characters without spaces');
  }
  const metricsToken = r.raw('METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[\x21-\x7e]{24,256}$/.test(metricsToken)) {
    r.problems.push('METRICS_TOKEN must be 24 to 256 printable characters without spaces');
  }
  const host = r.raw('HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:_-]+$/.test(host)) r.problems.push(`HOST is not a host name or address (got "${host}")`);
  r.oneOf('NODE_ENV', ['production', 'development', 'test'] as const, 'production');
  const dataDir = resolve(r.raw('DATA_DIR') ?? './data');
  const mcp = hostOriginRule(r.raw('MCP_ALLOWED_HOSTS'), r.raw('MCP_ALLOWED_ORIGINS'));
  r.problems.push(...mcp.problems);
  const config: AppConfig = {
    port: r.int('PORT', 3000, 0, 65535),
    host,
    databaseUrl,
    dataDir,
    adminApiKey,
    metricsToken,
    logLevel: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: r.raw('NODE_ENV') === 'development' ? 'text' : 'json',
    dbPoolSize: r.int('DB_POOL_SIZE', 10, 1, 100),
    dbLimits: {
      connectMs: r.int('DB_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
      statementMs: r.int('DB_STATEMENT_TIMEOUT_MS', 15_000, 100, 3_600_000),
      acquireMs: r.int('DB_ACQUIRE_TIMEOUT_MS', 5_000, 100, 600_000),
    },
    resolutionCacheEntries: r.int('RESOLUTION_CACHE_ENTRIES', 2_000, 0, 1_000_000),
    teamSkillsCacheEntries: r.int('TEAM_SKILLS_CACHE_ENTRIES', 1_000, 0, 1_000_000),
    skillLookupCacheEntries: r.int('SKILL_LOOKUP_CACHE_ENTRIES', 20_000, 0, 1_000_000),
    creatorCacheEntries: r.int('CREATOR_CACHE_ENTRIES', 10_000, 0, 1_000_000),
    newTaskCacheEntries: r.int('NEW_TASK_CACHE_ENTRIES', 10_000, 0, 1_000_000),
    packageLimits: {
      maxPackageBytes: r.int('MAX_PACKAGE_BYTES', 10 * MIB, 1024, 1024 * MIB),
      // The stored zip has no ZIP64 records, and a PostgreSQL bytea holds at most 1 GiB.
      maxEntries: r.int('MAX_PACKAGE_ENTRIES', 512, 1, 65_535),
      maxFileBytes: r.int('MAX_FILE_BYTES', 16 * MIB, 1024, 1024 * MIB),
      maxExpandedBytes: r.int('MAX_EXPANDED_BYTES', 64 * MIB, 1024, 1024 * MIB),
      maxCompressionRatio: r.int('MAX_COMPRESSION_RATIO', 200, 1, 100_000),
      maxPathBytes: r.int('MAX_PATH_BYTES', 512, 16, 4096),
    },
    inspection: {
      workers: r.int('INSPECTION_WORKERS', availableParallelism(), 1, 64),
      deadlineMs: r.int('INSPECTION_TIMEOUT_MS', 10_000, 100, 600_000),
      maxUploadsPerUser: r.int('MAX_UPLOADS_PER_USER', 4, 1, 1_000),
    },
    http: {
      headersTimeoutMs: r.int('HTTP_HEADERS_TIMEOUT_MS', 15_000, 100, 3_600_000),
      requestTimeoutMs: r.int('HTTP_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
      keepAliveTimeoutMs: r.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 3_600_000),
      maxConnections: r.int('HTTP_MAX_CONNECTIONS', 1_000, 1, 1_000_000),
    },
    authFailureLimit: r.int('AUTH_FAILURE_LIMIT', 30, 0, 1_000_000),
    authFailureWindowSeconds: r.int('AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    trustProxy: r.int('TRUST_PROXY', 0, 0, 10),
    mcpHostOrigin: mcp.rule,
    toolPolicy: {
      matchBudget: r.int('TOOL_CHECK_MATCH_BUDGET', DEFAULT_MATCH_BUDGET, MIN_MATCH_BUDGET, MAX_MATCH_BUDGET),
      cacheEntries: r.int('TOOL_POLICY_CACHE_ENTRIES', 4_096, 0, 1_000_000),
    },
    wellKnownIndex: r.oneOf('WELL_KNOWN_INDEX', WELL_KNOWN_INDEX_MODES, 'off'),
    storage: storageSettings(r, databaseUrl !== undefined, dataDir),
    git: { allowedHosts: [], credentials: new Map(), timeoutMs: 0, maxFetchBytes: 0 },
  };
  config.git = gitSettings(r, config.packageLimits.maxExpandedBytes);
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    r.problems.push('HTTP_HEADERS_TIMEOUT_MS must not be greater than HTTP_REQUEST_TIMEOUT_MS');
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** An http(s) URL of a host, with no path, query or credentials: what an S3 endpoint may be. */
const ENDPOINT = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?\/?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?\/?$/;
/** Segments of letters, digits, `.`, `_` and `-` (no `.` or `..` alone), joined by `/`. */
const PREFIX = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/;

/**
 * docs/configuration.md#package-storage: the store defaults to the database with a server (one
 * dependency), to a folder with the embedded database (so the bytes never sit in its memory).
 */
function storageSettings(r: Reader, server: boolean, dataDir: string): StorageSettings {
  const store = r.oneOf('BLOB_STORE', BLOB_STORE_KINDS, server ? 'database' : 'fs');
  const bucket = r.raw('S3_BUCKET');
  if (store === 's3' && bucket === undefined) r.problems.push('BLOB_STORE=s3 needs S3_BUCKET');
  let s3: S3Settings | null = null;
  if (bucket !== undefined) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      r.problems.push(`S3_BUCKET must be a bucket name: 3-63 of a-z, 0-9, . and - (got "${bucket}")`);
    }
    const region = r.raw('S3_REGION') ?? 'us-east-1';
    if (!/^[a-z0-9-]{1,32}$/.test(region)) r.problems.push(`S3_REGION must be a region name (got "${region}")`);
    const endpoint = r.raw('S3_ENDPOINT');
    const publicEndpoint = r.raw('S3_PUBLIC_ENDPOINT');
    for (const [name, value] of [
      ['S3_ENDPOINT', endpoint],
      ['S3_PUBLIC_ENDPOINT', publicEndpoint],
    ] as const) {
      if (value !== undefined && !ENDPOINT.test(value)) {
        r.problems.push(`${name} must be an http:// or https:// URL of a host, with no path or credentials`);
      }
    }
    const accessKeyId = r.raw('S3_ACCESS_KEY_ID');
    const secretAccessKey = r.raw('S3_SECRET_ACCESS_KEY');
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
      r.problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together, or neither');
    }
    const prefix = r.raw('S3_PREFIX');
    if (prefix !== undefined && (!PREFIX.test(prefix) || prefix.length > 200)) {
      r.problems.push('S3_PREFIX must be up to 200 of A-Z, a-z, 0-9, . _ - in segments joined by /');
    }
    s3 = {
      bucket,
      region,
      endpoint: endpoint?.replace(/\/$/, ''),
      accessKeyId,
      secretAccessKey,
      forcePathStyle: r.bool('S3_FORCE_PATH_STYLE', false),
      prefix: prefix === undefined ? '' : prefix.replace(/\/?$/, '/'),
      publicEndpoint: publicEndpoint?.replace(/\/$/, ''),
    };
  }
  return {
    store,
    dir: resolve(r.raw('BLOB_DIR') ?? join(dataDir, 'blobs')),
    s3,
    downloadRedirect: r.oneOf('DOWNLOAD_REDIRECT', ['presigned', 'stream'] as const, 'presigned'),
    presignTtlSeconds: r.int('PRESIGN_TTL_SECONDS', 60, 1, 3_600),
    gcGraceHours: r.int('BLOB_GC_GRACE_HOURS', 24, 0, 87_600),
    gcIntervalMinutes: r.int('BLOB_GC_INTERVAL_MINUTES', 60, 0, 10_080),
  };
}

/** docs/configuration.md#git-imports */
function gitSettings(r: Reader, maxExpandedBytes: number): GitImportSettings {
  const { hosts: allowedHosts, problems: hostProblems } = parseGitAllowedHosts(r.raw('GIT_ALLOWED_HOSTS'));
  const { credentials, problems: credentialProblems } = parseGitCredentials(r.raw('GIT_CREDENTIALS'));
  r.problems.push(...hostProblems, ...credentialProblems);
  return {
    allowedHosts,
    credentials,
    timeoutMs: r.int('GIT_IMPORT_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    maxFetchBytes: r.int('GIT_MAX_FETCH_BYTES', 4 * maxExpandedBytes, 1024, 64 * 1024 * MIB),
  };
}

/** The secrets of a configuration, which the logger masks in every line. */
export function configSecrets(config: AppConfig): string[] {
  const s3 = config.storage.s3;
  return [
    ...(config.databaseUrl ? databaseUrlSecrets(config.databaseUrl) : []),
    ...(config.adminApiKey ? [config.adminApiKey] : []),
    ...(config.metricsToken ? [config.metricsToken] : []),
    ...(s3?.accessKeyId ? [s3.accessKeyId] : []),
    ...(s3?.secretAccessKey ? [s3.secretAccessKey] : []),
    ...config.git.credentials.values(),
  ];
}
