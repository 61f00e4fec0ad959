// docs/operations.md#rate-limits: failed authentications per client address, per replica, in memory. After `limit`
// failures within a window (opened by the first failure), every request from that address that
// carries credentials answers 429 until the window ends, a valid key too, so the limit never tells
// a right guess from a wrong one. Memory is bounded: at most `maxAddresses` windows are kept.
import { Inject, Injectable } from '@nestjs/common';
import { isIPv6 } from 'node:net';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

export const MAX_TRACKED_ADDRESSES = 100_000;

/**
 * The address a limit applies to: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64, the block
 * one subscriber usually holds, so that rotating through it does not reset the count.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped) return mapped[1];
  if (!isIPv6(bare)) return bare;
  const [head, tail = ''] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = bare.includes('::') && tail ? tail.split(':') : [];
  // An embedded IPv4 tail takes two groups; only the first four groups matter here.
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

interface Window {
  start: number;
  failures: number;
}

export interface FailureWindowOptions {
  /** Failures allowed per window; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  maxAddresses?: number;
}

/** The rule, with its clock injected: no Nest, no timers. */
export class AuthFailureWindows {
  private readonly windows = new Map<string, Window>();
  private readonly maxAddresses: number;

  constructor(
    private readonly options: FailureWindowOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.maxAddresses = options.maxAddresses ?? MAX_TRACKED_ADDRESSES;
  }

  get size(): number {
    return this.windows.size;
  }

  /** Whole seconds until `key` may authenticate again; 0 when it may now. */
  retryAfterSeconds(key: string): number {
    if (this.options.limit === 0) return 0;
    const window = this.windows.get(key);
    if (!window) return 0;
    const remaining = window.start + this.options.windowMs - this.now();
    if (remaining <= 0) {
      this.windows.delete(key);
      return 0;
    }
    return window.failures >= this.options.limit ? Math.ceil(remaining / 1000) : 0;
  }

  recordFailure(key: string): void {
    if (this.options.limit === 0) return;
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.start + this.options.windowMs <= now) {
      // Re-inserted, so the map stays ordered by window start: expired windows sit at its front.
      this.windows.delete(key);
      this.makeRoom(now);
      window = { start: now, failures: 0 };
      this.windows.set(key, window);
    }
    window.failures += 1;
  }

  /** Drops expired windows from the front; when none has expired, the oldest one. */
  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) {
      if (this.windows.size < this.maxAddresses && window.start + this.options.windowMs > now) return;
      this.windows.delete(key);
    }
  }
}

@Injectable()
export class AuthFailureLimiter extends AuthFailureWindows {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({ limit: config.authFailureLimit, windowMs: config.authFailureWindowSeconds * 1000 });
  }
}
