// Records that keys were used without touching the request: ids are collected in memory and
// written in one UPDATE every few seconds (and at shutdown), each key at most once a minute.
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppLogger } from '../common/logging/app-logger';
import { CredentialsRepository } from './credentials.repository';

const FLUSH_EVERY_MS = 5_000;
const ONCE_PER_MS = 60_000;

@Injectable()
export class ApiKeyUsageRecorder implements OnModuleDestroy {
  private readonly pending = new Set<number>();
  private readonly lastRecorded = new Map<number, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly logger: AppLogger,
  ) {}

  record(keyId: number, now = Date.now()): void {
    const last = this.lastRecorded.get(keyId);
    if (last !== undefined && now - last < ONCE_PER_MS) return;
    this.lastRecorded.set(keyId, now);
    this.pending.add(keyId);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
      this.timer.unref();
    }
  }

  async flush(): Promise<void> {
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const ids = [...this.pending];
    this.pending.clear();
    try {
      await this.credentials.touchApiKeys(ids);
    } catch (err) {
      this.logger.write('warn', 'could not record API key use', { error: (err as Error).message });
    }
    if (this.lastRecorded.size > 100_000) this.lastRecorded.clear();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.flush();
  }
}
