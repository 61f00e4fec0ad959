// Throwaway databases for one benchmark run: fresh databases next to DATABASE_URL on a server,
// else in-memory embedded servers in child processes (so PGlite's work does not share the load
// generator's event loop).
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { BENCH_NODE_ARGS } from './service';

export interface BenchDatabase {
  url: string;
  drop: () => Promise<void>;
}

export interface DatabaseHost {
  /** Printed above the table. */
  kind: string;
  create(label: string): Promise<BenchDatabase>;
}

const EMBEDDED_SERVER = join(__dirname, '..', 'embedded-server.js');

export async function openDatabaseHost(serverUrl: string | undefined): Promise<DatabaseHost> {
  return serverUrl ? serverHost(serverUrl) : embeddedHost();
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

async function serverHost(serverUrl: string): Promise<DatabaseHost> {
  const version = await withClient(serverUrl, async (c) => {
    const rows = await c.query<{ server_version: string }>('SHOW server_version');
    return rows.rows[0].server_version;
  });
  const at = new URL(serverUrl);
  const run = randomBytes(4).toString('hex');
  return {
    kind: `PostgreSQL server ${version.split(' ')[0]} at ${at.host}`,
    create: async (label) => {
      const name = `sr_bench_${run}_${label}`;
      await withClient(serverUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        drop: () => withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(),
      };
    },
  };
}

function embeddedHost(): DatabaseHost {
  return {
    kind: 'embedded PGlite (in memory, its own process)',
    create: async () => {
      const child = spawn(process.execPath, [...BENCH_NODE_ARGS, EMBEDDED_SERVER], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const url = await firstUrl(child);
      return { url, drop: () => stopChild(child) };
    },
  };
}

function firstUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`the embedded server exited with ${code} before starting`)));
    lines.once('line', (line) => {
      lines.close();
      resolve((JSON.parse(line) as { url: string }).url);
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
