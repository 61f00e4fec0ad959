// How many imports (and updates and checks, which also talk to a remote) run at once
// (docs/publishing.md#allowlist-credentials-and-limits): at most 2 per replica and 1 per user; past that, 429 with Retry-After.
import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';

export const MAX_IMPORTS_PER_REPLICA = 2;
export const MAX_IMPORTS_PER_USER = 1;
const RETRY_AFTER_SECONDS = 5;

@Injectable()
export class ImportSlots {
  private running = 0;
  private readonly byUser = new Set<number>();

  /** Takes a slot for `userId` or throws 429; the function returned gives it back (once). */
  admit(userId: number): () => void {
    if (this.byUser.has(userId)) {
      throw new DomainError('RATE_LIMITED', `At most ${MAX_IMPORTS_PER_USER} import per user may run at once`, {
        retry_after: RETRY_AFTER_SECONDS,
      });
    }
    if (this.running >= MAX_IMPORTS_PER_REPLICA) {
      throw new DomainError('RATE_LIMITED', `At most ${MAX_IMPORTS_PER_REPLICA} imports may run at once here`, {
        retry_after: RETRY_AFTER_SECONDS,
      });
    }
    this.running++;
    this.byUser.add(userId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.byUser.delete(userId);
    };
  }

  /** Runs `work` in a slot of `userId`. */
  async run<T>(userId: number, work: () => Promise<T>): Promise<T> {
    const release = this.admit(userId);
    try {
      return await work();
    } finally {
      release();
    }
  }
}

/** Whether `err` is the remote's work stopped because `cancel` aborted (its client went away). */
export function cancelledBy(err: unknown, cancel: AbortSignal | undefined): boolean {
  return cancel?.aborted === true && err instanceof DomainError && err.code === 'GIT_TIMEOUT';
}

/**
 * Runs `work` with a signal that aborts when `timeoutMs` have passed since the start (one deadline for
 * everything an import asks of the remote, GIT_IMPORT_TIMEOUT_MS, not one per request) or when
 * `cancel` aborts (its client went away): what runs against the remote then stops at once.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  cancel?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onCancel = (): void => controller.abort();
  if (cancel?.aborted) controller.abort();
  else cancel?.addEventListener('abort', onCancel, { once: true });
  try {
    return await work(controller.signal);
  } catch (err) {
    if (cancelledBy(err, cancel)) {
      throw new DomainError('GIT_TIMEOUT', 'The import from git was cancelled: its client went away');
    }
    if (controller.signal.aborted && err instanceof DomainError && err.code === 'GIT_TIMEOUT') {
      throw new DomainError('GIT_TIMEOUT', `The import from git did not finish within ${timeoutMs} ms`, {
        timeout_ms: timeoutMs,
      });
    }
    throw err;
  } finally {
    clearTimeout(timer);
    cancel?.removeEventListener('abort', onCancel);
  }
}
