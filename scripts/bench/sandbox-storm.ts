// The sandbox start storm of `npm run bench` (docs/sandbox-client.md#start-storm): 100 sandboxes on
// 10 hosts started within a second, each running the built `skill-resolver sync` as a process with
// its own task token into its own folder, the 10 sandboxes of a host sharing its cache folder;
// beside it, in the same run, the raw transfer: the same packages fetched by as many minimal Node
// processes from a plain static file server on loopback. 3 rounds, the two in turn, medians.
// Alone: `node dist/scripts/bench/sandbox-storm.js` (DATABASE_URL as for the bench);
// BENCH_STORM_CLI runs another build's client (its `bin/skill-resolver.js` or `cli.js`), and
// BENCH_STORM_BASELINE adds a third row, the storm with another build's client, in turn with the
// other two in the same run (a before and after on the same machine at the same time).
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { openDatabaseHost } from './database';
import { BENCH_ADMIN_KEY, startService } from './service';
import {
  SKILLS_PER_TEAM,
  STORM_PACKAGES,
  STORM_TEAMS,
  StormPackage,
  stormPackages,
  teamSelections,
} from './storm-packages';
import { runAlone } from './alone';

const SANDBOXES = 100;
const HOSTS = 10;
const ROUNDS = 3;
const REPO = join(__dirname, '..', '..', '..');
const CLIENT = process.env.BENCH_STORM_CLI?.trim() || join(REPO, 'bin', 'skill-resolver.js');
const BASELINE = process.env.BENCH_STORM_BASELINE?.trim() || null;
const RAW_FETCH = join(__dirname, 'storm-raw-fetch.js');
const STATIC_SERVER = join(__dirname, 'storm-static-server.js');
/** Targets: the storm's fleet time and p99 over the raw transfer's, and no sandbox failing. */
const FLEET_TARGET = 1.5;
const P99_TARGET = 2;

type Progress = (line: string) => void;

export interface Sandbox {
  taskId: number;
  token: string;
  host: number;
  /** Indexes into the packages. */
  packages: number[];
}

export interface Prepared {
  packages: StormPackage[];
  /** The bytes the service serves for each package (the raw transfer serves the same). */
  served: Buffer[];
  sandboxes: Sandbox[];
}

async function call<T>(baseUrl: string, key: string, method: string, path: string, body?: object): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The 60 packages published, 20 teams of one bot whose ghost lists 12 of them, 5 tasks each with a token. */
export async function prepareStorm(baseUrl: string, adminKey: string): Promise<Prepared> {
  const run = randomBytes(3).toString('hex');
  const user = await call<{ api_key: string }>(baseUrl, adminKey, 'POST', '/api/users', { user_name: `storm-${run}` });
  const key = user.api_key;
  const packages = stormPackages(run);
  const served: Buffer[] = [];
  for (const pkg of packages) {
    const form = new FormData();
    form.append('file', new Blob([pkg.zip], { type: 'application/zip' }), `${pkg.name}.zip`);
    const res = await fetch(`${baseUrl}/api/skills`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    if (res.status !== 201) throw new Error(`publishing ${pkg.name}: ${res.status} ${await res.text()}`);
    const { id } = (await res.json()) as { id: number };
    const download = await fetch(`${baseUrl}/api/skills/${id}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (download.status !== 200) throw new Error(`downloading ${pkg.name}: ${download.status}`);
    served.push(Buffer.from(await download.arrayBuffer()));
  }
  const sandboxes: Sandbox[] = [];
  const selections = teamSelections();
  const perTeam = SANDBOXES / STORM_TEAMS;
  for (let team = 0; team < STORM_TEAMS; team++) {
    const names = selections[team].map((i) => packages[i].name);
    const label = `storm-${run}-team-${team + 1}`;
    const ghost = await call<{ id: number }>(baseUrl, key, 'POST', '/api/ghosts', { name: label, skills: names });
    const bot = await call<{ id: number }>(baseUrl, key, 'POST', '/api/bots', { name: label, ghost_id: ghost.id });
    const made = await call<{ id: number }>(baseUrl, key, 'POST', '/api/teams', {
      name: label,
      members: [{ bot_id: bot.id }],
    });
    for (let i = 0; i < perTeam; i++) {
      const task = await call<{ id: number }>(baseUrl, key, 'POST', '/api/tasks', { team_id: made.id });
      const { token } = await call<{ token: string }>(baseUrl, key, 'POST', `/api/tasks/${task.id}/tokens`, {});
      // Sandbox n runs on host n mod 10: a host's sandboxes belong to several teams, as on a shared fleet.
      const n = sandboxes.length;
      sandboxes.push({ taskId: task.id, token, host: n % HOSTS, packages: selections[team] });
    }
  }
  return { packages, served, sandboxes };
}

/** User and system CPU of a process so far, in ms (`children`: of its waited-for children), from /proc. */
async function cpuMs(pid: number | 'self', children = false): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14-17 of stat (utime, stime, cutime, cstime), in clock ticks of 10 ms.
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    return (children ? cutime + cstime : utime + stime) * 10;
  } catch {
    return NaN;
  }
}

interface Launched {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Phase {
  fleetMs: number;
  spawnSpanMs: number;
  perSandbox: number[];
  requests: number;
  retries: number;
  bytes: number;
  failed: number;
  /** The first lines of a failed sandbox's stderr. */
  failures: string[];
  /** Sandboxes that succeeded but printed something on stderr despite --quiet (a runtime warning). */
  noisy: number;
  /** CPU of the 100 processes, per process (ms). */
  cpuPerSandbox: number;
  /** CPU of the server side over the phase (the service and its database, or the static server). */
  serverCpuMs: number;
  /** The service's own account of a storm phase. */
  service?: ServiceSample | null;
}

/**
 * Starts every command at once and waits for all: each one's wall time, exit code and output. Each
 * is first spawned as a shell that waits on its stdin, then all are released together (a newline
 * to each) and `exec` Node: spawning a hundred processes one after another takes seconds on a
 * loaded host (the first ones already compete with the parent for the cores), while the release
 * takes a millisecond, so the sandboxes really start within one second, as an orchestrator
 * starting them at once would have them.
 */
async function launchAll(commands: Array<{ args: string[]; env: Record<string, string> }>): Promise<{
  runs: Launched[];
  fleetMs: number;
  spawnSpanMs: number;
}> {
  const gated = commands.map(({ args, env }) => {
    const child: ChildProcess = spawn('/bin/sh', ['-c', 'read _ && exec "$0" "$@"', process.execPath, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    const closed = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.on('close', (code) => resolve({ code, at: performance.now() })),
    );
    return { child, out, err, closed };
  });
  // Every shell up and waiting before the clock starts.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const start = performance.now();
  const released: number[] = [];
  for (const { child } of gated) {
    child.stdin!.end('\n');
    released.push(performance.now());
  }
  const spawnSpanMs = performance.now() - start;
  const runs = await Promise.all(
    gated.map(async ({ out, err, closed }, i) => {
      const { code, at } = await closed;
      return {
        ms: at - released[i],
        code,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      };
    }),
  );
  return { runs, fleetMs: performance.now() - start, spawnSpanMs };
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};
const median = (values: number[]): number => percentile(values, 0.5);

/** The processes whose CPU is the server side's: fixed, or asked for before and after a phase (a database's backends). */
export type ServerProcesses = () => Promise<number[]>;

async function measure(
  work: () => Promise<{ runs: Launched[]; fleetMs: number; spawnSpanMs: number }>,
  serverProcesses: ServerProcesses,
): Promise<Phase> {
  const childrenBefore = await cpuMs('self', true);
  const before = new Map<number, number>();
  for (const pid of await serverProcesses()) before.set(pid, await cpuMs(pid));
  const { runs, fleetMs, spawnSpanMs } = await work();
  const childrenCpu = (await cpuMs('self', true)) - childrenBefore;
  // A process that started during the phase (a backend the pool opened) counts from its start.
  const serverCpu = await Promise.all(
    (await serverProcesses()).map(async (pid) => (await cpuMs(pid)) - (before.get(pid) ?? 0)),
  );
  const phase: Phase = {
    fleetMs,
    spawnSpanMs,
    perSandbox: runs.map((r) => r.ms),
    requests: 0,
    retries: 0,
    bytes: 0,
    failed: 0,
    failures: [],
    noisy: 0,
    cpuPerSandbox: childrenCpu / runs.length,
    serverCpuMs: serverCpu.filter((ms) => Number.isFinite(ms)).reduce((sum, ms) => sum + ms, 0),
  };
  for (const run of runs) {
    let json: { requests?: number; retries?: number; bytes_downloaded?: number; bytes?: number } = {};
    try {
      json = JSON.parse(run.stdout) as typeof json;
    } catch {
      // A run that printed nothing on stdout: its exit code says it failed.
    }
    phase.requests += json.requests ?? 0;
    phase.retries += json.retries ?? 0;
    phase.bytes += json.bytes_downloaded ?? json.bytes ?? 0;
    if (run.code === 0 && run.stderr.trim() !== '') phase.noisy++;
    if (run.code !== 0) {
      phase.failed++;
      if (phase.failures.length < 3)
        phase.failures.push(run.stderr.trim().split('\n').slice(-2).join(' / ').slice(0, 300));
    }
  }
  return phase;
}

/** What the service says of itself over a storm phase, from its /api/metrics. */
interface ServiceSample {
  /** The most queries seen waiting for a pool connection at once, and the pool's size. */
  maxPoolWaiting: number;
  poolSize: number;
  /** Downloads answered during the phase, by status, and their mean time inside the service. */
  downloads: Map<string, number>;
  downloadMeanMs: number;
}

function metricValues(text: string, name: string): Array<{ labels: string; value: number }> {
  const found: Array<{ labels: string; value: number }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^(\S+?)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match && match[1] === name) found.push({ labels: match[2] ?? '', value: Number(match[3]) });
  }
  return found;
}

/** Reads the service's metrics every 250 ms until stopped: pool waits, and the downloads it answered. */
export function sampleService(baseUrl: string, adminKey: string): () => Promise<ServiceSample | null> {
  const read = async (): Promise<string | null> => {
    try {
      const res = await fetch(`${baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${adminKey}` } });
      return res.ok ? await res.text() : null;
    } catch {
      return null;
    }
  };
  const downloadTotals = (text: string): { count: Map<string, number>; sum: number } => {
    const route = (labels: string): boolean => labels.includes('route="/api/skills/:id/download"');
    const count = new Map<string, number>();
    for (const { labels, value } of metricValues(text, 'skill_resolver_http_request_duration_seconds_count')) {
      if (!route(labels)) continue;
      const status = /status="(\d+)"/.exec(labels)?.[1] ?? '?';
      count.set(status, (count.get(status) ?? 0) + value);
    }
    const sum = metricValues(text, 'skill_resolver_http_request_duration_seconds_sum')
      .filter((m) => route(m.labels))
      .reduce((total, m) => total + m.value, 0);
    return { count, sum };
  };
  let maxWaiting = 0;
  let poolSize = 0;
  let stopped = false;
  const first = read();
  const loop = (async () => {
    while (!stopped) {
      const text = await read();
      if (text) {
        maxWaiting = Math.max(
          maxWaiting,
          ...metricValues(text, 'skill_resolver_db_pool_waiting_requests').map((m) => m.value),
        );
        poolSize = Math.max(
          poolSize,
          ...metricValues(text, 'skill_resolver_db_pool_connections_max').map((m) => m.value),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    const [before, after] = [await first, await read()];
    if (!before || !after) return null;
    const [a, b] = [downloadTotals(before), downloadTotals(after)];
    const downloads = new Map<string, number>();
    for (const [status, n] of b.count)
      if (n - (a.count.get(status) ?? 0) > 0) downloads.set(status, n - (a.count.get(status) ?? 0));
    const answered = [...downloads.values()].reduce((total, n) => total + n, 0);
    return {
      maxPoolWaiting: maxWaiting,
      poolSize,
      downloads,
      downloadMeanMs: answered > 0 ? ((b.sum - a.sum) * 1000) / answered : 0,
    };
  };
}

/** The embedded database's process, when this bench started one (its only child running embedded-server.js). */
async function embeddedDatabasePid(): Promise<number | null> {
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === process.pid && cmdline.includes('embedded-server.js')) return Number(name);
  }
  return null;
}

function startStaticServer(dir: string): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [STATIC_SERVER, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the static server exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const { port } = JSON.parse(line) as { port: number };
      resolve({
        port,
        pid: child.pid!,
        stop: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

function describeService(sample: ServiceSample): string {
  const statuses = [...sample.downloads].map(([status, n]) => `${n}x ${status}`).join(', ');
  return (
    `downloads ${statuses || 'none'}, ${sample.downloadMeanMs.toFixed(0)} ms each inside it on average, ` +
    `up to ${sample.maxPoolWaiting} queries waiting for one of its ${sample.poolSize} connections`
  );
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The rows, as markdown table lines. `service`: the service's processes (and its database's), for
 * their CPU; `serviceLabel` says what they are.
 */
export async function benchSandboxStorm(
  baseUrl: string,
  adminKey: string,
  progress: Progress,
  service: ServerProcesses = async () => [],
  serviceLabel = 'service',
): Promise<string[]> {
  const { packages, served, sandboxes } = await prepareStorm(baseUrl, adminKey);
  const sizes = served.map((b) => b.length).sort((a, b) => a - b);
  progress(
    `storm: ${STORM_PACKAGES} packages published (${mib(sizes.reduce((s, b) => s + b, 0))}; ` +
      `${(sizes[0] / 1024).toFixed(0)} KiB to ${mib(sizes[sizes.length - 1])}), ${SANDBOXES} tasks on ${STORM_TEAMS} teams`,
  );
  const scratch = await mkdtemp(join(tmpdir(), 'sr-bench-storm-'));
  const staticDir = join(scratch, 'static');
  await mkdir(staticDir);
  for (let i = 0; i < packages.length; i++) await writeFile(join(staticDir, `${packages[i].name}.zip`), served[i]);
  const files = await startStaticServer(staticDir);
  try {
    const stormCommands = (round: string, client = CLIENT) =>
      sandboxes.map((sandbox, n) => ({
        args: [
          client,
          'sync',
          '--task',
          String(sandbox.taskId),
          '--dir',
          join(scratch, round, `host-${sandbox.host}`, `sandbox-${n}`, 'skills'),
          '--cache',
          join(scratch, round, `host-${sandbox.host}`, 'cache'),
          '--json',
          '--quiet',
        ],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: join(scratch, round, `host-${sandbox.host}`),
          SKILL_RESOLVER_URL: baseUrl,
          SKILL_RESOLVER_TOKEN: sandbox.token,
        },
      }));
    const rawCommands = (round: string) =>
      sandboxes.map((sandbox, n) => ({
        args: [
          RAW_FETCH,
          join(scratch, round, `host-${sandbox.host}`, `sandbox-${n}`, 'raw'),
          ...sandbox.packages.map((i) => `http://127.0.0.1:${files.port}/p/${packages[i].name}.zip`),
        ],
        env: { PATH: process.env.PATH ?? '' },
      }));
    const hostDirs = async (round: string): Promise<void> => {
      for (let h = 0; h < HOSTS; h++) await mkdir(join(scratch, round, `host-${h}`), { recursive: true });
    };

    // One untimed sandbox of each, so neither side pays for first reads or a cold page cache.
    await hostDirs('warmup');
    await launchAll([stormCommands('warmup')[0], rawCommands('warmup')[0]]);
    await rm(join(scratch, 'warmup'), { recursive: true, force: true });

    type Kind = 'storm' | 'raw' | 'baseline';
    const kinds: Kind[] = BASELINE ? ['storm', 'raw', 'baseline'] : ['storm', 'raw'];
    const phases: Record<Kind, Phase[]> = { storm: [], raw: [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // In turn, the order turned each round, so drift on the shared machine lands on all alike.
      const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]);
      for (const kind of order) {
        const label = `${kind}-${round}`;
        await hostDirs(label);
        let phase: Phase;
        if (kind === 'raw') {
          phase = await measure(
            () => launchAll(rawCommands(label)),
            async () => [files.pid],
          );
        } else {
          const sampled = sampleService(baseUrl, adminKey);
          phase = await measure(() => launchAll(stormCommands(label, kind === 'storm' ? CLIENT : BASELINE!)), service);
          phase.service = await sampled();
        }
        phases[kind].push(phase);
        // Folders stay until the end: files deleted now would make the next round's creations dearer
        // (the file system looks past recently freed inodes).
        progress(
          `storm: round ${round + 1} ${kind}: fleet ${seconds(phase.fleetMs)}, p50 ${seconds(median(phase.perSandbox))}, ` +
            `p99 ${seconds(percentile(phase.perSandbox, 0.99))}, ${phase.failed} failed, ${phase.retries} retries, ` +
            `${phase.cpuPerSandbox.toFixed(0)} ms CPU per sandbox, released in ${seconds(phase.spawnSpanMs)}` +
            (phase.noisy > 0 ? `; ${phase.noisy} printed on stderr despite --quiet` : '') +
            (phase.service ? `; service: ${describeService(phase.service)}` : '') +
            (phase.failures.length > 0 ? `; e.g. ${phase.failures[0]}` : ''),
        );
      }
    }
    return render(phases.storm, phases.raw, phases.baseline, sizes, serviceLabel);
  } finally {
    await files.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

function render(storm: Phase[], raw: Phase[], baseline: Phase[], sizes: number[], serviceLabel: string): string[] {
  const summary = (phases: Phase[]) => ({
    fleet: median(phases.map((p) => p.fleetMs)),
    p50: median(phases.map((p) => median(p.perSandbox))),
    p99: median(phases.map((p) => percentile(p.perSandbox, 0.99))),
    cpu: median(phases.map((p) => p.cpuPerSandbox)),
    server: median(phases.map((p) => p.serverCpuMs)),
    requests: median(phases.map((p) => p.requests)),
    retries: median(phases.map((p) => p.retries)),
    bytes: median(phases.map((p) => p.bytes)),
    failed:
      phases.map((p) => p.failed).join('/') +
      (phases.some((p) => p.noisy > 0) ? ` (noisy ${phases.map((p) => p.noisy).join('/')})` : ''),
    spawn: Math.max(...phases.map((p) => p.spawnSpanMs)),
  });
  const s = summary(storm);
  const r = summary(raw);
  const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  const stormRow = (label: string, phases: Phase[], target: boolean): string[] => {
    const x = summary(phases);
    const fleet = x.fleet / r.fleet;
    const p99 = x.p99 / r.p99;
    const failed = phases.some((p) => p.failed > 0) || raw.some((p) => p.failed > 0);
    return [
      label,
      `${seconds(x.fleet)} (${fleet.toFixed(2)}x)`,
      `${seconds(x.p50)} / ${seconds(x.p99)} (${p99.toFixed(2)}x)`,
      `${count(x.requests)} req (${count(x.retries)} retried), ${mib(x.bytes)}`,
      x.failed,
      `${x.cpu.toFixed(0)} ms; ${serviceLabel} ${seconds(x.server)}`,
      target
        ? `fleet <= ${FLEET_TARGET.toFixed(1)}x ${met(fleet <= FLEET_TARGET)}; p99 <= ${P99_TARGET.toFixed(1)}x ` +
          `${met(p99 <= P99_TARGET)}; 0 failed ${met(!failed)}`
        : '',
    ];
  };
  const rows: string[][] = [
    [
      `raw transfer: ${SANDBOXES} minimal Node fetchers, static server`,
      seconds(r.fleet),
      `${seconds(r.p50)} / ${seconds(r.p99)}`,
      `${count(r.requests)} req, ${mib(r.bytes)}`,
      r.failed,
      `${r.cpu.toFixed(0)} ms; server ${seconds(r.server)}`,
      '',
    ],
    stormRow(`storm: ${SANDBOXES} x \`skill-resolver sync\`, ${HOSTS} hosts`, storm, true),
    ...(baseline.length > 0 ? [stormRow(`storm, baseline client (${BASELINE})`, baseline, false)] : []),
  ];
  const header = [
    'sandbox start storm',
    'fleet (all ready)',
    'p50 / p99 per sandbox',
    'requests, bytes',
    'failed',
    'CPU per sandbox',
    'target',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    ...storm
      .map((p, i) => (p.service ? `storm round ${i + 1}, the service: ${describeService(p.service)}` : ''))
      .filter(Boolean),
    `(${SANDBOXES} tasks on ${STORM_TEAMS} teams, ${SKILLS_PER_TEAM} of ${STORM_PACKAGES} packages each ` +
      `(zips ${kib(sizes[0])} to ${mib(sizes[sizes.length - 1])}, median ${kib(median(sizes))}); sandboxes released ` +
      `within ${seconds(s.spawn)}; medians of ${ROUNDS} rounds, the rows in turn; failed per round; CPU from /proc: ` +
      `the ${SANDBOXES} processes per process, the server side over the phase)`,
  ];
}

/** The backends of the server database at `url` (this bench's own database), by their pids. */
function backendsOf(url: string): ServerProcesses {
  return async () => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return rows.rows.map((r) => r.pid);
    } finally {
      await client.end();
    }
  };
}

/** Alone: a throwaway database and the built service, then the rows. */
async function alone(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL?.trim() || undefined;
  const host = await openDatabaseHost(serverUrl);
  const db = await host.create('storm');
  const dataDir = await mkdtemp(join(tmpdir(), 'sr-bench-storm-data-'));
  const service = await startService(db.url, dataDir);
  const embedded = serverUrl ? null : await embeddedDatabasePid();
  const backends = serverUrl ? backendsOf(db.url) : null;
  try {
    const lines = await benchSandboxStorm(
      service.baseUrl,
      BENCH_ADMIN_KEY,
      (l) => process.stderr.write(`bench: ${l}\n`),
      async () => [service.pid, ...(embedded === null ? [] : [embedded]), ...(backends ? await backends() : [])],
      backends || embedded !== null ? 'service and its database' : 'service',
    );
    process.stdout.write(`database: ${host.kind}\nclient: ${CLIENT}\n\n${lines.join('\n')}\n`);
  } finally {
    await service.stop();
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runAlone(module, alone);
