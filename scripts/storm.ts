// `node dist/scripts/storm.js [--main <dist/src/main.js of any release>] [--sandboxes 100]
// [--parallel 8] [--packages 100] [--kib 100] [--env KEY=VALUE ...]`: the sandbox start storm
// against one service (docs/benchmarks.md#package-storage), so that two releases can be compared on
// the same machine. Without DATABASE_URL the service runs its embedded database in a fresh folder;
// with it, a fresh database on that server is reached through a counting proxy (round trips, bytes
// and connection time per download); `--embedded-server` serves an in-memory embedded database
// from a process of its own, behind the same proxy. The load runs in this process.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { downloadStorm } from './bench/download-storm';
import { publishPackages, sandboxes } from './bench/packages';
import { startPgCounter } from './bench/pg-counter';

const ADMIN = 'srk_storm_admin_key_0123456789abcdef';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

function options(name: string): string[] {
  return process.argv.flatMap((arg, i) => (arg === `--${name}` ? [process.argv[i + 1]] : []));
}

async function live(baseUrl: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${baseUrl}/api/health/live`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the service did not start');
}

async function main(): Promise<void> {
  const mainJs = resolve(option('main', join(__dirname, '..', 'src', 'main.js')));
  const count = Number(option('sandboxes', '100'));
  const parallel = Number(option('parallel', '8'));
  const packages = Number(option('packages', '100'));
  const kib = Number(option('kib', '100'));
  const extra = Object.fromEntries(
    options('env').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-storm-'));
  const server = process.env.DATABASE_URL?.trim();
  let dbName: string | undefined;
  let counter;
  let databaseUrl: string | undefined;
  let embeddedServer: ChildProcess | undefined;
  if (process.argv.includes('--embedded-server')) {
    const child = spawn(process.execPath, [join(__dirname, 'embedded-server.js')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    embeddedServer = child;
    const url = await new Promise<string>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { url: string }).url)),
    );
    counter = await startPgCounter(url);
    databaseUrl = counter.url;
  } else if (server) {
    dbName = `sr_storm_${process.pid}`;
    const admin = new Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${dbName}"`);
    await admin.end();
    const url = new URL(server);
    url.pathname = `/${dbName}`;
    counter = await startPgCounter(url.toString());
    databaseUrl = counter.url;
  }
  const port = 20_000 + (process.pid % 20_000);
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL;
  const child = spawn(process.execPath, [mainJs], {
    env: {
      ...inherited,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...extra,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await live(baseUrl, child);
    const published = await publishPackages(baseUrl, ADMIN, packages, kib * 1024, 'storm');
    const boxes = await sandboxes(baseUrl, ADMIN, published, count, parallel);
    const result = await downloadStorm({
      baseUrl,
      adminKey: ADMIN,
      pid: child.pid!,
      sandboxes: boxes,
      parallel,
      counter,
    });
    process.stdout.write(
      JSON.stringify({
        main: mainJs,
        database: embeddedServer ? 'embedded server' : server ? 'server' : 'embedded',
        sandboxes: count,
        parallel,
        ...extra,
        ...result,
      }) + '\n',
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await counter?.close();
    embeddedServer?.stdin?.end();
    if (dbName) {
      const admin = new Client({ connectionString: server });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await admin.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
