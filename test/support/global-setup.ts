// Once per test run: a migrated database (the server's in TEST_DATABASE_URL, used as the template
// of per-file clones, or an in-memory embedded server in a child process).
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/schema/typeorm-options';
import { MODE_ENV, URL_ENV } from './database';

declare global {
  var __embeddedDb: ChildProcess | undefined;
}

const ROOT = join(__dirname, '..', '..');

async function startEmbedded(): Promise<string> {
  const script = join(ROOT, 'dist', 'scripts', 'embedded-server.js');
  if (!existsSync(script)) throw new Error(`${script} is missing: run npm run build first (npm test does)`);
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
  globalThis.__embeddedDb = child;
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const parsed = JSON.parse(line) as { url: string };
    return parsed.url;
  }
  throw new Error('the embedded database exited before it was ready');
}

export default async function globalSetup(): Promise<void> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    process.stdout.write(
      '\nTEST_DATABASE_URL is not set: this run uses the embedded database, and skips the suites that need a ' +
        'PostgreSQL server (replicas, notifications, database faults; docs/testing.md#two-databases).\n',
    );
  }
  const url = serverUrl ?? (await startEmbedded());
  const dataSource = new DataSource(buildDataSourceOptions({ url, poolSize: 1 }));
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'all' });
  await dataSource.destroy();
  process.env[URL_ENV] = url;
  process.env[MODE_ENV] = serverUrl ? 'server' : 'embedded';
}
