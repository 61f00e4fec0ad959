// Whether the database answers, within READY_WITHIN_MS whatever the database does. One check runs
// at a time: probes that arrive while it runs share it, so a frozen database never piles up
// checks (or pool connections) however often the orchestrator asks.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** docs/operations.md#when-the-database-does-not-answer: `/health/ready` answers 503 within 2 s when the database does not answer. */
export const READY_WITHIN_MS = 1_000;

@Injectable()
export class DatabaseProbe {
  private running: Promise<boolean> | null = null;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** True when `SELECT 1` answered within the bound. */
  async answers(): Promise<boolean> {
    this.running ??= this.db
      .query('SELECT 1')
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        this.running = null;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_WITHIN_MS);
    });
    try {
      return await Promise.race([this.running, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
