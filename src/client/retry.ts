// When a request is sent again (docs/sandbox-client.md#retries): the service that answers 503 or
// 429 says "try again", so the client does, within the sync's one deadline. What to retry and how
// long to wait is decided here from plain values (the status, the retries made, Retry-After, the
// time left and a random number), so the rule is tested as a table, without a clock or a server.

/** The answers that mean "try again": the service (or the store) is overloaded or rate-limits. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/**
 * No answer at all: the connection was refused, or reset before the answer began (a server under
 * a storm dropping connections, or closing an idle keep-alive connection as it is reused). The
 * request did nothing on the other side that a second one would not, so it is sent again as a 503
 * would be. A connection lost once an answer's body had begun is not retried (docs/sandbox-client.md#retries).
 */
export const CONNECTION_LOST = 0;
/** Retries of one request at most; with the backoff below they span about 30 s at most. */
export const MAX_RETRIES = 8;
/** The backoff's first window: the first retry waits up to this long, each next one twice as long. */
export const BACKOFF_BASE_MS = 250;
/** The backoff's largest window. */
export const BACKOFF_CAP_MS = 8_000;
/** The longest Retry-After the client waits for: asked to wait longer, it stops at once and says so. */
export const MAX_RETRY_AFTER_MS = 60_000;

export interface RetryInput {
  /** The answer's status, or CONNECTION_LOST. */
  status: number;
  /** Retries already made of this request (0 before the first). */
  attempt: number;
  /** The `Retry-After` header as sent, when there is one. */
  retryAfter: string | undefined;
  /** Milliseconds left before the sync's deadline. */
  remainingMs: number;
  /** The time now (ms since the epoch), for a Retry-After given as an HTTP date. */
  now: number;
  /** A number in [0, 1): the jitter. */
  random: number;
}

export type RetryDecision =
  { retry: true; waitMs: number } | { retry: false; why: 'status' | 'attempts' | 'retry-after' | 'deadline' };

/**
 * The wait a `Retry-After` value asks for, in milliseconds: delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`; one in the past means now); undefined when absent or neither.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // An HTTP date (IMF-fixdate, or the obsolete RFC 850 form) starts with its weekday and a comma.
  if (!/^[A-Za-z]{3,9}, /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/**
 * Whether to send the request again, and after how long. Only 503, 429 and a connection lost
 * before any answer are retried, at most MAX_RETRIES times. A Retry-After is honoured (plus up to BACKOFF_BASE_MS of jitter, so the
 * sandboxes one answer told to wait do not all come back at the same instant), unless it asks
 * for more than MAX_RETRY_AFTER_MS; without one, exponential backoff with full jitter: a wait
 * drawn evenly from [0, min(BACKOFF_CAP_MS, BACKOFF_BASE_MS x 2^attempt)). A wait that would end
 * past the deadline is not started.
 */
export function retryDecision(input: RetryInput): RetryDecision {
  if (!RETRYABLE_STATUSES.has(input.status) && input.status !== CONNECTION_LOST) return { retry: false, why: 'status' };
  if (input.attempt >= MAX_RETRIES) return { retry: false, why: 'attempts' };
  const asked = retryAfterMs(input.retryAfter, input.now);
  if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return { retry: false, why: 'retry-after' };
  const random = Math.min(Math.max(input.random, 0), 1);
  const window = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** input.attempt);
  const waitMs = Math.floor(asked !== undefined ? asked + random * BACKOFF_BASE_MS : random * window);
  if (waitMs >= input.remainingMs) return { retry: false, why: 'deadline' };
  return { retry: true, waitMs };
}

/** Why a retryable answer was not retried, for the message that ends the request. */
export function describeGiveUp(why: Exclude<RetryDecision, { retry: true }>['why'], retries: number): string {
  switch (why) {
    case 'status':
      return '';
    case 'attempts':
      return `; still so after ${retries} retries`;
    case 'retry-after':
      return `; it asked to wait longer than ${MAX_RETRY_AFTER_MS / 1000} s`;
    case 'deadline':
      return retries > 0 ? `; after ${retries} retries, no time left before the deadline` : '; no time left to retry';
  }
}
