// The embedded database's boot rows: the built service started with no DATABASE_URL on an empty
// data folder (the cluster is made from the build's template), then again on the folder it left,
// three times over on three folders. Time is from spawning `node dist/src/main.js` to the first
// answer of /api/health/live (the median of the three); memory is the process's peak resident set
// (VmHWM, the highest of the three) and its resident set once it answers (VmRSS, the highest).
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunningService, startService } from './service';

export interface Boot {
  label: string;
  ms: number;
  /** MiB; NaN where /proc is not there to ask. */
  peakRss: number;
  rss: number;
}

async function memory(pid: number): Promise<{ peak: number; now: number }> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peak: kib('VmHWM') / 1024, now: kib('VmRSS') / 1024 };
  } catch {
    return { peak: NaN, now: NaN };
  }
}

async function boot(label: string, dataDir: string): Promise<Boot> {
  const start = performance.now();
  const service: RunningService = await startService(undefined, dataDir);
  const ms = performance.now() - start;
  try {
    const { peak, now } = await memory(service.pid);
    return { label, ms, peakRss: peak, rss: now };
  } finally {
    await service.stop();
  }
}

const ROUNDS = 3;

/** Boots of one kind: the median time, the highest memory. */
function summary(label: string, boots: Boot[]): Boot {
  const times = boots.map((b) => b.ms).sort((a, b) => a - b);
  return {
    label: `${label} (median of ${boots.length}: ${times.map((t) => (t / 1000).toFixed(2)).join(', ')} s)`,
    ms: times[Math.floor(times.length / 2)],
    peakRss: Math.max(...boots.map((b) => b.peakRss)),
    rss: Math.max(...boots.map((b) => b.rss)),
  };
}

/** In each of three folders under `dataDir`: a first boot on the empty folder, then a later boot on what it left. */
export async function measureEmbeddedBoot(dataDir: string): Promise<Boot[]> {
  const first: Boot[] = [];
  const later: Boot[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const dir = join(dataDir, String(i));
    await mkdir(dir);
    first.push(await boot('first', dir));
    later.push(await boot('later', dir));
  }
  return [summary('first boot, empty data folder', first), summary('later boot, same folder', later)];
}

export function renderBoots(boots: Boot[]): string[] {
  const mib = (v: number): string => (Number.isNaN(v) ? '-' : `${Math.round(v)} MiB`);
  // The first boot's target (issue: <= 2.5 s and <= 450 MB); later boots have none.
  const target = (b: Boot, i: number): string =>
    i > 0 ? '' : `<= 2.5 s, <= 450 MiB ${b.ms <= 2_500 && b.peakRss <= 450 ? 'met' : 'MISSED'}`;
  const rows = boots.map((b, i) => [
    `embedded ${b.label}`,
    `${(b.ms / 1000).toFixed(2)} s`,
    mib(b.peakRss),
    mib(b.rss),
    target(b, i),
  ]);
  const header = ['boot', 'until live', 'peak RSS', 'RSS when live', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
}
