// The event loop as a client sees it: `/api/health/live` asked every few milliseconds from another
// process, each wait recorded. No test framework here, so the benchmarks use it too.
import { spawn } from 'node:child_process';

export interface EventLoopProbe {
  /** Stops probing and returns the longest wait of any probe and every probe's wait, in milliseconds. */
  stop(): Promise<{ maxMs: number; probes: number; samples: number[] }>;
}

/**
 * The probe's own process: its timers keep running while the app's event loop is blocked, so a
 * probe sent during a stall waits for it. (A probe in the app's process would not: its timer fires
 * only once the loop is free again, and then finds the app idle.)
 */
const PROBE_SCRIPT = `
const http = require('node:http');
const [port, everyMs] = process.argv.slice(1).map(Number);
let samples = [], stopped = false;
const once = () => new Promise((resolve) => {
  const started = performance.now();
  const req = http.request({ host: '127.0.0.1', port, path: '/api/health/live', agent: false }, (res) => {
    res.resume();
    res.on('end', () => { samples.push(performance.now() - started); resolve(); });
  });
  req.on('error', () => resolve());
  req.end();
});
const loop = (async () => {
  await once();
  samples = [];
  process.stdout.write('ready\\n');
  while (!stopped) { await new Promise((r) => setTimeout(r, everyMs)); await once(); }
})();
process.stdin.on('end', async () => {
  stopped = true;
  await loop;
  process.stdout.write(JSON.stringify({ maxMs: samples.reduce((m, x) => Math.max(m, x), 0), probes: samples.length, samples }) + '\\n');
});
process.stdin.resume();
`;

/**
 * Asks `/api/health/live` every `everyMs` on a fresh connection, from another process, and records
 * how long each answer took: a request that blocks the event loop delays every probe meanwhile.
 * Resolves once the first probe has been answered.
 */
export async function probeEventLoop(port: number, everyMs = 50): Promise<EventLoopProbe> {
  const child = spawn(process.execPath, ['-e', PROBE_SCRIPT, String(port), String(everyMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.startsWith('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the event-loop probe exited (${code})`)));
  });
  return {
    async stop() {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      await exited;
      return JSON.parse(output.slice('ready\n'.length)) as { maxMs: number; probes: number; samples: number[] };
    },
  };
}
