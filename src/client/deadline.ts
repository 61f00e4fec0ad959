// The time bounds of one sync: a deadline for the whole run, which every request and every wait
// listens to, and the cut of a request whose answer arrives too slowly. The arithmetic of the cut
// is a plain class fed with times and byte counts, so its rule is tested without a clock.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientError, EXIT_FAILED } from './errors';

export const DEFAULT_TIMEOUT_MS = 300_000;
/** The most a timer can wait in Node (about 24.8 days). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** A request is cut when less than `bytesPerSecond` arrived over the last `windowMs`. */
export interface SlowDownloadRule {
  windowMs: number;
  bytesPerSecond: number;
}

export const DEFAULT_SLOW_DOWNLOAD: Readonly<SlowDownloadRule> = Object.freeze({
  windowMs: 30_000,
  bytesPerSecond: 1024,
});

/** Checks of the window are this many per window, so a cut comes at most a tenth of it late. */
const CHECKS_PER_WINDOW = 10;

export function checkInterval(rule: SlowDownloadRule): number {
  return Math.max(10, Math.floor(rule.windowMs / CHECKS_PER_WINDOW));
}

/**
 * The bytes of one answer over a sliding window. `received` counts body bytes as they come;
 * `tooSlow(now)`, called at each check, answers true once a whole window has passed since the
 * request started and less than the rule's rate arrived over the last one (nothing at all, while
 * the server holds back even the head, counts as zero).
 */
export class RateWindow {
  private total = 0;
  /** Totals seen at past checks, oldest first; the first is at or before `now - windowMs`. */
  private readonly seen: Array<{ at: number; total: number }>;

  constructor(
    private readonly rule: SlowDownloadRule,
    start: number,
  ) {
    this.seen = [{ at: start, total: 0 }];
  }

  received(bytes: number): void {
    this.total += bytes;
  }

  tooSlow(now: number): boolean {
    const windowStart = now - this.rule.windowMs;
    while (this.seen.length > 1 && this.seen[1].at <= windowStart) this.seen.shift();
    this.seen.push({ at: now, total: this.total });
    const oldest = this.seen[0];
    if (oldest.at > windowStart) return false;
    return this.total - oldest.total < (this.rule.bytesPerSecond * this.rule.windowMs) / 1000;
  }

  /** Bytes over the last window, for the message of a cut. */
  lastWindowBytes(): number {
    return this.total - this.seen[0].total;
  }
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

export function describeRule(rule: SlowDownloadRule): string {
  const rate = rule.bytesPerSecond % 1024 === 0 ? `${rule.bytesPerSecond / 1024} KiB/s` : `${rule.bytesPerSecond} B/s`;
  return `${rate} over ${seconds(rule.windowMs)}`;
}

/**
 * One run's deadline: `signal` fires when it passes (or when the caller's own signal does), and
 * every request, wait and folder change of the run checks it, so a sync ends by itself with the
 * previous copies in place.
 */
export class Deadline {
  readonly signal: AbortSignal;
  private readonly timeout: AbortSignal;
  private readonly endsAt: number;

  constructor(
    readonly timeoutMs: number,
    private readonly outer?: AbortSignal,
    /** What runs against it, for its messages: `sync` or `publish`. */
    private readonly job = 'sync',
  ) {
    this.endsAt = Date.now() + timeoutMs;
    this.timeout = AbortSignal.timeout(timeoutMs);
    this.signal = outer ? AbortSignal.any([this.timeout, outer]) : this.timeout;
    // Every request in flight and every wait listens to it: a sync of 12 skills waiting on a host
    // whose other sandboxes fetch them has more than Node's default of 10, and that is no leak
    // (so no warning on the sandbox's stderr).
    setMaxListeners(0, this.signal);
  }

  get passed(): boolean {
    return this.signal.aborted;
  }

  /** What ends the run once the signal fired. */
  error(): ClientError {
    if (this.timeout.aborted) {
      return new ClientError(
        EXIT_FAILED,
        `The ${this.job} did not finish within ${seconds(this.timeoutMs)} (--timeout); what it had not done is left as it was`,
      );
    }
    // A caller that says why (the command, on SIGTERM) is quoted.
    const why = this.outer?.reason instanceof ClientError ? this.outer.reason.message : 'by its caller';
    return new ClientError(EXIT_FAILED, `The ${this.job} was stopped ${why}; what it had not done is left as it was`);
  }

  /** Milliseconds left before the deadline (0 once it passed). */
  remainingMs(): number {
    return this.signal.aborted ? 0 : Math.max(0, this.endsAt - Date.now());
  }

  check(): void {
    if (this.signal.aborted) throw this.error();
  }

  async sleep(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.signal });
    } catch {
      throw this.error();
    }
  }
}
