// Time limits on every connection of the pool (docs/operations.md#when-the-database-does-not-answer): opening a connection, waiting for one,
// and each statement. The server enforces the statement limit itself (statement_timeout), but a
// server that is frozen or cut off enforces nothing, so the client bounds every query too, and a
// connection whose query timed out is closed rather than handed to the next request (its answer
// may still arrive, out of turn).
import { Client, ClientConfig } from 'pg';
import { DatabaseLimits } from '../config/app-config';

/** pg's message for a query that outlived `query_timeout`. */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';
/** Probes dead peers on idle connections (a silently dropped network), after this much silence. */
const KEEPALIVE_IDLE_MS = 10_000;
/**
 * How long the pool keeps a connection nobody uses. pg's default, 10 s, closed the pool after any
 * pause, and the next burst paid for opening connections and preparing each statement again
 * (the first requests of every burst, the p99); a connection costs the server little while idle.
 */
const POOL_IDLE_MS = 5 * 60_000;

type Callback = (err: Error | null, result?: unknown) => void;

/** A pg client that opens within `connectMs` and closes itself when one of its queries times out. */
export function boundedClientClass(connectMs: number): typeof Client {
  return class BoundedClient extends Client {
    constructor(config?: string | ClientConfig) {
      super(
        typeof config === 'string'
          ? { connectionString: config, connectionTimeoutMillis: connectMs }
          : { ...config, connectionTimeoutMillis: connectMs },
      );
    }

    // One override for every form of query(): callback last, or a promise.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...params: any[]): any {
      const args = params as unknown[];
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        const callback = last as Callback;
        args[args.length - 1] = (err: Error | null, result?: unknown) => {
          this.closeIfTimedOut(err);
          callback(err, result);
        };
        return (super.query as (...a: unknown[]) => unknown)(...args);
      }
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      // Registered before the caller's own handler, so the client is closed before it is released.
      if (result instanceof Promise) result.catch((err: Error) => this.closeIfTimedOut(err));
      return result;
    }

    private closeIfTimedOut(err: Error | null): void {
      if (err?.message === QUERY_TIMEOUT_MESSAGE) void this.end().catch(() => undefined);
    }
  };
}

/** Options of pg's Pool (TypeORM's `extra`) that apply `limits`. */
export function boundedPoolOptions(limits: DatabaseLimits): Record<string, unknown> {
  return {
    Client: boundedClientClass(limits.connectMs),
    // pg-pool: the longest wait for a connection, idle or new.
    connectionTimeoutMillis: limits.acquireMs,
    // Sent to the server at connect.
    statement_timeout: limits.statementMs,
    // The client's own bound, for a server that does not answer at all.
    query_timeout: limits.statementMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    idleTimeoutMillis: POOL_IDLE_MS,
  };
}

/** Options of a single pg Client (the change listener) that open it within the limits. */
export function boundedClientOptions(
  limits: DatabaseLimits,
): Pick<ClientConfig, 'connectionTimeoutMillis' | 'keepAlive' | 'keepAliveInitialDelayMillis'> {
  return { connectionTimeoutMillis: limits.connectMs, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS };
}
