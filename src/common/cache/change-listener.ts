// Hears writes made elsewhere (other replicas, SQL by hand) through PostgreSQL LISTEN on the
// channel the change triggers notify. A connection can fail without a word (packets dropped, the
// server's process paused), so the listener also sends itself a heartbeat on that channel every
// second: caches serve only while the last heartbeat heard was sent less than 2 s ago (CONTRACT
// §11), and a late heartbeat makes the listener reconnect.
import { randomBytes } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { boundedClientOptions } from '../../database/database-limits';
import { AppLogger } from '../logging/app-logger';
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
const RETRY_MS = 1_000;

@Injectable()
export class ChangeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The connection in use: opening, or listening once `listening` is set. */
  private client?: Client;
  private listening = false;
  private stopped = false;
  private retry?: NodeJS.Timeout;
  private ticker?: NodeJS.Timeout;
  private heartbeatPending = false;
  /** performance.now() when this connection started listening, and when the last heartbeat heard was sent. */
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
      this.listeningSince = performance.now();
      this.sendHeartbeat(client);
    } catch (err) {
      this.lost(client, (err as Error).message);
    }
  }

  private tick(): void {
    const client = this.client;
    if (this.stopped || !client || !this.listening) return;
    const since = Math.max(this.lastHeardSentAt, this.listeningSince);
    if (performance.now() - since > HEARTBEAT_MAX_AGE_MS) {
      this.lost(client, `no heartbeat heard for ${HEARTBEAT_MAX_AGE_MS} ms`);
      return;
    }
    this.sendHeartbeat(client);
  }

  /** One at a time: on a connection that does not answer, heartbeats do not queue up. */
  private sendHeartbeat(client: Client): void {
    if (this.heartbeatPending) return;
    this.heartbeatPending = true;
    const payload = `${HEARTBEAT_PREFIX}${this.token}:${performance.now().toFixed(3)}`;
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
    if (!payload.startsWith(HEARTBEAT_PREFIX)) {
      this.changes.bump();
      return;
    }
    const [token, sentAt] = payload.slice(HEARTBEAT_PREFIX.length).split(':');
    if (token !== this.token || client !== this.client) return;
    const sent = Number(sentAt);
    if (!Number.isFinite(sent)) return;
    this.lastHeardSentAt = Math.max(this.lastHeardSentAt, sent);
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
