// Boot-time schema work that must happen once even when several replicas start together: the
// first takes a PostgreSQL advisory lock, the others wait for it and then find nothing to do.
import { DataSource, Migration } from 'typeorm';

const BOOT_LOCK_KEY = 724_311_905; // any constant shared by every replica of this service

export async function withBootLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [BOOT_LOCK_KEY]);
    try {
      return await work();
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [BOOT_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}

export function runMigrations(dataSource: DataSource): Promise<Migration[]> {
  return dataSource.runMigrations({ transaction: 'all' });
}
