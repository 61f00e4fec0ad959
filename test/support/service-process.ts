// The built service (`node dist/src/main.js`) as a real process, for boot, lock and signal tests.
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

export interface ServiceProcess {
  child: ChildProcess;
  /** stdout and stderr lines so far. */
  lines: string[];
  /** Resolves with the port once the service listens; rejects if it exits first. */
  ready: Promise<number>;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `defaults: false` leaves out the PORT and LOG_LEVEL this helper sets otherwise. */
export function startService(
  env: Record<string, string>,
  options: { cwd?: string; defaults?: boolean } = {},
): ServiceProcess {
  const defaults = options.defaults === false ? {} : { PORT: '0', LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...defaults, ...env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let onListening: (port: number) => void = () => undefined;
  const ready = new Promise<number>((resolve, reject) => {
    onListening = resolve;
    child.once('exit', (code) =>
      reject(new Error(`service exited with ${code} before listening:\n${lines.join('\n')}`)),
    );
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      let at: number;
      while ((at = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        lines.push(line);
        const match = /"msg":"listening","address":"[^"]*:(\d+)"/.exec(line);
        if (match) onListening(Number(match[1]));
      }
    });
  }
  return {
    child,
    lines,
    ready,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function getJson(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}
