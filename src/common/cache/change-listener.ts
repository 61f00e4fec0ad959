// Hears writes made elsewhere (other replicas, SQL by hand) through PostgreSQL LISTEN on the
// channel the change triggers notify. While not listening, caches serve nothing.
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { AppLogger } from '../logging/app-logger';
import { ChangeGeneration } from './change-generation';

export const CHANGE_CHANNEL = 'skill_resolver_changes';
export const LISTEN_URL = Symbol('LISTEN_URL');
const RETRY_MS = 1_000;

@Injectable()
export class ChangeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private client?: Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly changes: ChangeGeneration,
    private readonly logger: AppLogger,
    /** Null on the embedded database: one process, whose writes all pass the interceptor. */
    @Inject(LISTEN_URL) private readonly url: string | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.url) await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.changes.setHeard(false);
    const client = new Client({ connectionString: this.url!, application_name: 'skill-resolver-listener' });
    client.on('notification', () => this.changes.bump());
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      this.client = client;
      this.changes.setHeard(true);
    } catch (err) {
      this.logger.write('warn', 'change listener could not connect; caches are off until it does', {
        error: (err as Error).message,
      });
      this.lost(client);
    }
  }

  private lost(client: Client): void {
    this.changes.setHeard(false);
    if (this.client === client) this.client = undefined;
    void client.end().catch(() => undefined);
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped) void this.connect();
    }, RETRY_MS);
    this.retry.unref();
  }
}
