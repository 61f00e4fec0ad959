// Hears writes made elsewhere (other replicas, SQL by hand) through PostgreSQL LISTEN on the
// channel the change triggers notify. A connection can fail without a word (packets dropped, the
// server's process paused), so the listener also sends itself a heartbeat on that channel every
// second: caches serve only while the last heartbeat heard was sent less than 2 s ago (see
// docs/architecture.md#caching-and-invalidation), and a late heartbeat makes the listener reconnect. Late by the event loop's clock, though:
// while the loop is blocked nothing can be heard, and a heartbeat answered meanwhile is waiting in
// the socket, so a stalled loop is not a dead connection (caches are off through it all the same).
import { randomBytes } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { boundedClientOptions } from '../database/database-limits';
import { AppLogger } from '../common/logging/app-logger';
import { ChangeGeneration } from './change-generation';

export const CHANGE_CHANNEL = 'skill_resolver_changes';
export const LISTEN_URL = Symbol('LISTEN_URL');
/** The listener's connection, as `pg_stat_activity.application_name` shows it. */
export const LISTENER_APPLICATION_NAME = 'skill-resolver-listener';
export const HEARTBEAT_EVERY_MS = 1_000;
/** Caches serve nothing while the last heartbeat heard is older than this. */
export const HEARTBEAT_MAX_AGE_MS = 2_000;
const HEARTBEAT_PREFIX = 'heartbeat:';
/** `ghost:<id>`: only that ghost's row changed (migration NarrowChangeNotifications). */
const GHOST_PREFIX = 'ghost:';
/** `binding-user:<id>`, `binding-group:<name>`: only those skill bindings changed (migration SkillBindings). */
const BINDING_USER_PREFIX = 'binding-user:';
const BINDING_GROUP_PREFIX = 'binding-group:';
const RETRY_MS = 1_000;
/** A tick this much later than its interval follows a stall of the event loop. */
const STALL_MS = HEARTBEAT_EVERY_MS / 2;

@Injectable()
export class ChangeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The connection in use: opening, or listening once `listening` is set. */
  private client?: Client;
  private listening = false;
  private stopped = false;
  private retry?: NodeJS.Timeout;
  private ticker?: NodeJS.Timeout;
  private heartbeatPending = false;
  /**
   * How long the event loop has been blocked in all, as far as the heartbeat timer can tell (the
   * time it fired after it was due). performance.now() minus this is the loop's own clock, which
   * stands still through a stall: the time in which the connection could have been heard.
   */
  private stalledMs = 0;
  private lastTickAt = 0;
  /** On the loop's clock: when this connection started listening, and when the last heartbeat heard was sent. */
  private listeningSince = 0;
  private lastHeardSentAt = -Infinity;
  /** Set while the listener is down, so that an outage is logged once. */
  private down = false;
  /** Tells this process's heartbeats from other replicas' on the shared channel. */
  private readonly token = randomBytes(6).toString('hex');

  constructor(
    private readonly changes: ChangeGeneration,
    private readonly logger: AppLogger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** Null on the embedded database: one process, whose writes all pass the interceptor. */
    @Inject(LISTEN_URL) private readonly url: string | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.url) return;
    await this.connect();
    this.lastTickAt = performance.now();
    this.ticker = setInterval(() => this.tick(), HEARTBEAT_EVERY_MS);
    this.ticker.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.ticker);
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.changes.setHeard(false);
    const client = new Client({
      connectionString: this.url!,
      application_name: LISTENER_APPLICATION_NAME,
      ...boundedClientOptions(this.config.dbLimits),
    });
    this.client = client;
    this.listening = false;
    this.heartbeatPending = false;
    this.lastHeardSentAt = -Infinity;
    client.on('notification', (msg) => this.heard(client, msg.payload ?? ''));
    client.on('error', (err) => this.lost(client, err.message));
    client.on('end', () => this.lost(client, 'connection closed'));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (this.client !== client) return;
      this.listening = true;
      this.listeningSince = this.loopNow();
      this.sendHeartbeat(client);
    } catch (err) {
      this.lost(client, (err as Error).message);
    }
  }

  /** performance.now() without the time the event loop was blocked. */
  private loopNow(): number {
    return performance.now() - this.stalledMs;
  }

  private tick(): void {
    const now = performance.now();
    const late = now - this.lastTickAt - HEARTBEAT_EVERY_MS;
    this.lastTickAt = now;
    if (late > 0) this.stalledMs += late;
    const client = this.client;
    if (this.stopped || !client || !this.listening) return;
    const since = Math.max(this.lastHeardSentAt, this.listeningSince);
    if (this.loopNow() - since > HEARTBEAT_MAX_AGE_MS) {
      this.lost(client, `no heartbeat heard for ${HEARTBEAT_MAX_AGE_MS} ms`);
      return;
    }
    this.sendHeartbeat(client);
    if (late > STALL_MS) {
      // Timers run before the loop reads its sockets: the heartbeat sent before the stall is
      // heard right after this, too old to turn caches on; a fresh one then turns them on at once
      // instead of a tick later.
      setImmediate(() => {
        if (this.client === client && this.listening) this.sendHeartbeat(client);
      });
    }
  }

  /** One at a time: on a connection that does not answer, heartbeats do not queue up. */
  private sendHeartbeat(client: Client): void {
    if (this.heartbeatPending) return;
    this.heartbeatPending = true;
    // When it was sent by both clocks: the real one for what caches may serve, the loop's for liveness.
    const payload = `${HEARTBEAT_PREFIX}${this.token}:${performance.now().toFixed(3)}:${this.loopNow().toFixed(3)}`;
    client.query(`NOTIFY ${CHANGE_CHANNEL}, '${payload}'`).then(
      () => {
        if (this.client === client) this.heartbeatPending = false;
      },
      (err: Error) => this.lost(client, err.message),
    );
  }

  private heard(client: Client, payload: string): void {
    if (payload.startsWith(GHOST_PREFIX)) {
      const ghostId = Number(payload.slice(GHOST_PREFIX.length));
      if (Number.isSafeInteger(ghostId) && ghostId > 0) this.changes.ghostChanged(ghostId);
      else this.changes.bump();
      return;
    }
    if (payload.startsWith(BINDING_USER_PREFIX)) {
      const userId = Number(payload.slice(BINDING_USER_PREFIX.length));
      if (Number.isSafeInteger(userId) && userId > 0) this.changes.bindingChanged({ userId });
      else this.changes.bump();
      return;
    }
    if (payload.startsWith(BINDING_GROUP_PREFIX)) {
      const groupName = payload.slice(BINDING_GROUP_PREFIX.length);
      if (groupName.length > 0) this.changes.bindingChanged({ groupName });
      else this.changes.bump();
      return;
    }
    if (!payload.startsWith(HEARTBEAT_PREFIX)) {
      this.changes.bump();
      return;
    }
    const [token, sentAt, sentOnLoopAt] = payload.slice(HEARTBEAT_PREFIX.length).split(':');
    if (token !== this.token || client !== this.client) return;
    const sent = Number(sentAt);
    const sentOnLoop = Number(sentOnLoopAt);
    if (!Number.isFinite(sent) || !Number.isFinite(sentOnLoop)) return;
    this.lastHeardSentAt = Math.max(this.lastHeardSentAt, sentOnLoop);
    this.changes.heardUntilAtLeast(sent + HEARTBEAT_MAX_AGE_MS);
    if (this.down) {
      this.down = false;
      this.logger.write('info', 'change listener is back; caches are on');
    }
  }

  private lost(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    this.changes.setHeard(false);
    if (!this.down) {
      this.down = true;
      this.logger.write('warn', 'change listener lost its connection; caches are off until it is back', {
        error: reason,
      });
    }
    // end() alone would wait for a server that may not answer: close the socket as well.
    void client.end().catch(() => undefined);
    client.connection?.stream?.destroy();
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped) void this.connect();
    }, RETRY_MS);
    this.retry.unref();
  }
}
