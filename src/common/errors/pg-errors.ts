// Reads PostgreSQL error codes off driver errors (TypeORM wraps them in QueryFailedError).
interface PgErrorLike {
  code?: string;
  constraint?: string;
  driverError?: PgErrorLike;
}

function pgError(err: unknown): PgErrorLike | undefined {
  const e = err as PgErrorLike | undefined;
  return e?.driverError ?? e;
}

/** A unique violation, of `constraint` when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = pgError(err);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/** The unique constraint a write violated, or null for any other error. */
export function violatedUnique(err: unknown): string | null {
  const e = pgError(err);
  return e?.code === '23505' ? (e.constraint ?? '') : null;
}

/** SQLSTATE classes and codes that mean the server cannot serve now, not that the request is wrong. */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0)/;
/** 57014 query_canceled: the statement time limit (or an operator's cancel). */
const UNAVAILABLE_SQLSTATES = new Set(['57014', '25P03']);
/** Network failures, counted only on Node system errors (they carry `syscall`). */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What pg and pg-pool say when a connection cannot be had, is lost, or a query outlives its limit. */
const UNAVAILABLE_MESSAGES = [
  /^Query read timeout$/,
  /^timeout exceeded when trying to connect$/,
  /^Connection terminated/,
  /^timeout expired$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];

/**
 * Whether `err` (from pg, pg-pool or TypeORM wrapping them) says the database did not answer, is
 * down or refused to serve: such a request is 503 DATABASE_UNAVAILABLE, not a bug.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  const e = err as
    (PgErrorLike & { message?: unknown; cause?: unknown; errors?: unknown; syscall?: unknown }) | undefined;
  if (!e || typeof e !== 'object' || depth > 4) return false;
  const code = e.code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (typeof e.syscall === 'string' && UNAVAILABLE_ERRNOS.has(code)) return true;
  }
  const message = e.message;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(message))) return true;
  // A host name with several addresses, all refusing, arrives as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.driverError ?? e.cause, depth + 1);
}
