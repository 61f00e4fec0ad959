// Databases for tests: a clone of the migrated template per file on a server, or the one
// embedded database emptied before each file.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const MODE_ENV = 'SR_TEST_DB_MODE';
export const URL_ENV = 'SR_TEST_DB_URL';

export function isServerMode(): boolean {
  return process.env[MODE_ENV] === 'server';
}

/** `url` with another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A migrated, empty database for one test file. */
export async function freshDatabase(): Promise<TestDatabase> {
  const url = process.env[URL_ENV];
  if (!url) throw new Error(`${URL_ENV} is not set: run the tests through jest (global setup)`);
  if (isServerMode()) {
    const name = `sr_test_${randomBytes(6).toString('hex')}`;
    const template = databaseName(url);
    await withClient(withDatabase(url, 'postgres'), (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
    return {
      url: withDatabase(url, name),
      drop: () =>
        withClient(withDatabase(url, 'postgres'), (c) =>
          c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
        ).then(() => undefined),
    };
  }
  await withClient(url, async (c) => {
    const { rows } = await c.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'typeorm_migrations'`,
    );
    if (rows.length)
      await c.query(`TRUNCATE ${rows.map((r) => `"${r.tablename}"`).join(', ')} RESTART IDENTITY CASCADE`);
  });
  return { url, drop: async () => undefined };
}

/** An empty database with no migrations applied (server mode only). */
export async function emptyServerDatabase(): Promise<TestDatabase> {
  const url = process.env[URL_ENV]!;
  const name = `sr_empty_${randomBytes(6).toString('hex')}`;
  await withClient(withDatabase(url, 'postgres'), (c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    url: withDatabase(url, name),
    drop: () =>
      withClient(withDatabase(url, 'postgres'), (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

export { withClient };
