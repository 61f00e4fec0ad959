// Runs the built service as production does (`node dist/src/main.js`), against one database.
import { ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export const BENCH_ADMIN_KEY = 'srk_bench_admin_key_0123456789abcdef';

const MAIN = join(__dirname, '..', '..', 'src', 'main.js');

/**
 * V8's memory reducer off. The rows are measured in 2 s slots in turn, so a service that serves
 * two rows idles some 35 s between its slots while the one serving the one-row read never idles;
 * after about 10 s of idling the reducer gives the heap back (282 to 117 MiB in 40 s), and the next
 * slot ran a third slower while the heap grew again. Off, every service is measured in the steady
 * state the service under load is in, whatever the rows around it.
 */
export const BENCH_NODE_ARGS = ['--no-memory-reducer'];
const BOOT_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export interface RunningService {
  baseUrl: string;
  pid: number;
  stop: () => Promise<void>;
}

/**
 * LOG_LEVEL=warn keeps the per-request log line out of the measurement, but it also hides the
 * `listening` line, so the port is chosen here and readiness is polled on /api/health/live.
 * Without `databaseUrl` the service opens its embedded database in `dataDir`; `env` adds settings.
 */
export async function startService(
  databaseUrl: string | undefined,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<RunningService> {
  const port = await freePort();
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL;
  const child = spawn(process.execPath, [...BENCH_NODE_ARGS, MAIN], {
    env: {
      ...inherited,
      NODE_ENV: 'production',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ADMIN_API_KEY: BENCH_ADMIN_KEY,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer): void => {
    output.push(chunk.toString());
    if (output.length > 50) output.shift();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilLive(baseUrl, child);
  } catch (err) {
    await stop(child);
    throw new Error(`${(err as Error).message}\n${output.join('')}`, { cause: err });
  }
  return { baseUrl, pid: child.pid!, stop: () => stop(child) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilLive(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + BOOT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} while booting`);
    // A refused TCP connect costs this process next to nothing; a refused fetch costs far more, on
    // the cores the service boots on. So the port is knocked on until it accepts, then asked.
    if (await accepts(baseUrl)) {
      try {
        const res = await fetch(`${baseUrl}/api/health/live`);
        if (res.ok) return;
      } catch {
        // not answering yet
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the service did not answer within ${BOOT_TIMEOUT_MS / 1000} s`);
}

function accepts(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
