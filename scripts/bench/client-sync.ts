// The sandbox client's rows of `npm run bench` (docs/benchmarks.md#sandbox-client): one task of 20 skills of 1 MiB each.
// Cold: `skill-resolver sync` as a sandbox runs it (a process, empty cache and DIR) against the
// same 20 zips fetched by 8 parallel plain GETs in the same run. Warm: the same task again, as
// the library call alone and as a whole process. A second task on a warm host cache: another task
// of the same skills, with its own token, into an empty DIR beside a cache the first one filled
// (it downloads nothing). Alone: `node dist/scripts/bench/client-sync.js`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sync } from '../../src/client';
import { buildCanonicalZip } from '../../src/package/canonical-zip';
import { openDatabaseHost } from './database';
import { BENCH_ADMIN_KEY, startService } from './service';
import { runAlone } from './alone';

const SKILLS = 20;
const SKILL_BYTES = 1024 * 1024;
const PARALLEL = 8;
const COLD_ROUNDS = 9;
const WARM_ROUNDS = 15;
const CLI = join(__dirname, '..', '..', 'src', 'client', 'cli.js');

type Progress = (line: string) => void;

/** The fields of the answers used here. */
interface Created {
  id: number;
  api_key: string;
  token: string;
}

async function call(baseUrl: string, key: string, method: string, path: string, body?: object): Promise<Created> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Created;
}

/** A user with 20 skills of 1 MiB (incompressible, so each zip is 1 MiB too) in one task, and a token for it. */
export async function prepare(
  baseUrl: string,
  adminKey: string,
): Promise<{ taskId: number; token: string; ids: number[]; second: { taskId: number; token: string } }> {
  const run = randomBytes(3).toString('hex');
  const user = await call(baseUrl, adminKey, 'POST', '/api/users', { user_name: `client-bench-${run}` });
  const key: string = user.api_key;
  const names: string[] = [];
  const ids: number[] = [];
  for (let i = 1; i <= SKILLS; i++) {
    const name = `client-bench-${run}-${String(i).padStart(2, '0')}`;
    const skillMd = Buffer.from(`---\nname: ${name}\ndescription: Benchmark skill ${i}.\n---\n# ${name}\n`);
    const zip = buildCanonicalZip(name, [
      { path: 'SKILL.md', mode: '644', data: skillMd },
      { path: 'data.bin', mode: '644', data: randomBytes(SKILL_BYTES - skillMd.length) },
    ]);
    const form = new FormData();
    form.append('file', new Blob([zip], { type: 'application/zip' }), `${name}.zip`);
    const res = await fetch(`${baseUrl}/api/skills`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    if (res.status !== 201) throw new Error(`publishing ${name}: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: number }).id);
    names.push(name);
  }
  const ghost = await call(baseUrl, key, 'POST', '/api/ghosts', { name: `client-bench-${run}`, skills: names });
  const bot = await call(baseUrl, key, 'POST', '/api/bots', { name: `client-bench-${run}`, ghost_id: ghost.id });
  const team = await call(baseUrl, key, 'POST', '/api/teams', {
    name: `client-bench-${run}`,
    members: [{ bot_id: bot.id }],
  });
  const task = await call(baseUrl, key, 'POST', '/api/tasks', { team_id: team.id });
  const { token } = await call(baseUrl, key, 'POST', `/api/tasks/${task.id}/tokens`, {});
  const other = await call(baseUrl, key, 'POST', '/api/tasks', { team_id: team.id });
  const { token: otherToken } = await call(baseUrl, key, 'POST', `/api/tasks/${other.id}/tokens`, {});
  return { taskId: task.id, token, ids, second: { taskId: other.id, token: otherToken } };
}

/** The 20 zips by plain GETs, 8 at a time, each read to its end: the floor a sync is held against. */
async function plainGets(baseUrl: string, token: string, ids: number[]): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < ids.length) {
        const id = ids[next++];
        const res = await fetch(`${baseUrl}/api/skills/${id}/download`, {
          headers: { authorization: `Bearer ${token}` },
        });
        if (res.status !== 200) throw new Error(`download ${id}: ${res.status}`);
        const body = await res.arrayBuffer();
        bytes += body.byteLength;
      }
    }),
  );
  return { ms: performance.now() - start, bytes };
}

interface ProcessRun {
  ms: number;
  code: number | null;
  json: { requests: number; bytes_downloaded: number; skills: Array<{ from: string }> };
}

function cli(args: string[], env: Record<string, string>): Promise<ProcessRun> {
  const start = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const ms = performance.now() - start;
      if (code !== 0) return reject(new Error(`sync exited ${code}: ${Buffer.concat(err).toString()}`));
      resolve({ ms, code, json: JSON.parse(Buffer.concat(out).toString()) as ProcessRun['json'] });
    });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ms = (value: number): string => `${value.toFixed(1)} ms`;

/** The rows, as markdown table lines. */
export async function benchClientSync(baseUrl: string, adminKey: string, progress: Progress): Promise<string[]> {
  const { taskId, token, ids, second } = await prepare(baseUrl, adminKey);
  progress(`client: ${SKILLS} skills of 1 MiB published in task ${taskId}`);
  const scratch = await mkdtemp(join(tmpdir(), 'sr-bench-client-'));
  try {
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: scratch,
      SKILL_RESOLVER_URL: baseUrl,
      SKILL_RESOLVER_TOKEN: token,
    };
    const syncArgs = (dir: string, cache: string, task = taskId): string[] => [
      'sync',
      '--task',
      String(task),
      '--dir',
      dir,
      '--cache',
      cache,
      '--json',
      '--quiet',
    ];
    // One untimed round of each, so neither side pays for the service's first reads.
    await plainGets(baseUrl, token, ids);
    await cli(syncArgs(join(scratch, 'warmup'), join(scratch, 'warmup-cache')), env);

    // In turn, so drift on the shared machine lands on all three alike.
    const plain: number[] = [];
    const coldLibrary: number[] = [];
    const cold: number[] = [];
    let coldRun: ProcessRun | undefined;
    let plainBytes = 0;
    for (let round = 0; round < COLD_ROUNDS; round++) {
      const got = await plainGets(baseUrl, token, ids);
      plain.push(got.ms);
      plainBytes = got.bytes;
      const start = performance.now();
      const result = await sync({
        url: baseUrl,
        token,
        taskId,
        dir: join(scratch, `cold-lib-${round}`),
        cacheDir: join(scratch, `cache-lib-${round}`),
      });
      coldLibrary.push(performance.now() - start);
      if (result.exitCode !== 0 || result.bytes_downloaded < plainBytes)
        throw new Error('the cold sync did not download');
      coldRun = await cli(syncArgs(join(scratch, `cold-${round}`), join(scratch, `cache-${round}`)), env);
      cold.push(coldRun.ms);
    }
    const rounds = (values: number[]): string => values.map((v) => v.toFixed(0)).join('/');
    progress(
      `client: cold rounds done (plain ${rounds(plain)} ms, sync call ${rounds(coldLibrary)} ms, sync process ${rounds(cold)} ms)`,
    );

    const dir = join(scratch, 'cold-0');
    const cache = join(scratch, 'cache-0');
    const library: number[] = [];
    let libraryResult: Awaited<ReturnType<typeof sync>> | undefined;
    for (let round = 0; round < WARM_ROUNDS; round++) {
      const start = performance.now();
      libraryResult = await sync({ url: baseUrl, token, taskId, dir, cacheDir: cache });
      library.push(performance.now() - start);
    }
    const processes: ProcessRun[] = [];
    for (let round = 0; round < WARM_ROUNDS; round++) processes.push(await cli(syncArgs(dir, cache), env));
    const warm = processes[processes.length - 1].json;

    // A second task, its own token, an empty DIR each round, the host cache the first task filled.
    const secondEnv = { ...env, SKILL_RESOLVER_TOKEN: second.token };
    const secondLibrary: number[] = [];
    let secondResult: Awaited<ReturnType<typeof sync>> | undefined;
    const secondProcesses: ProcessRun[] = [];
    for (let round = 0; round < COLD_ROUNDS; round++) {
      const start = performance.now();
      secondResult = await sync({
        url: baseUrl,
        token: second.token,
        taskId: second.taskId,
        dir: join(scratch, `second-lib-${round}`),
        cacheDir: cache,
      });
      secondLibrary.push(performance.now() - start);
      secondProcesses.push(await cli(syncArgs(join(scratch, `second-${round}`), cache, second.taskId), secondEnv));
    }
    const secondRun = secondProcesses[secondProcesses.length - 1].json;
    const secondOk =
      [secondResult!, ...secondProcesses.map((p) => p.json)].every(
        (r) => r.bytes_downloaded === 0 && r.requests === 1 && r.skills.every((x) => x.from === 'cache'),
      ) && secondRun.skills.length === SKILLS;
    progress(
      `client: second-task rounds done (sync call ${rounds(secondLibrary)} ms, sync process ${rounds(secondProcesses.map((p) => p.ms))} ms)`,
    );

    const ratio = median(coldLibrary) / median(plain);
    const processRatio = median(cold) / median(plain);
    const libMs = median(library);
    const warmOk =
      libraryResult!.requests === 1 &&
      libraryResult!.bytes_downloaded === 0 &&
      warm.requests === 1 &&
      warm.bytes_downloaded === 0;
    const rows: string[][] = [
      [
        `cold: ${SKILLS} zips by ${PARALLEL} parallel plain GETs`,
        ms(median(plain)),
        `${SKILLS} requests, ${(plainBytes / 2 ** 20).toFixed(1)} MiB`,
        '',
      ],
      [
        "cold: `sync` library call (the command's work; empty cache and DIR)",
        `${ms(median(coldLibrary))} (${ratio.toFixed(2)}x)`,
        `${coldRun!.json.requests} requests, ${(coldRun!.json.bytes_downloaded / 2 ** 20).toFixed(1)} MiB, ` +
          `${coldRun!.json.skills.filter((s) => s.from === 'download').length} downloaded, checked, unpacked, cached`,
        `<= 1.50x ${ratio <= 1.5 ? 'met' : 'MISSED'}`,
      ],
      [
        'cold: `skill-resolver sync` (whole process)',
        `${ms(median(cold))} (${processRatio.toFixed(2)}x)`,
        'the same, plus starting Node',
        `<= 1.50x ${processRatio <= 1.5 ? 'met' : 'MISSED'}`,
      ],
      [
        "warm: `sync` library call (the command's work)",
        ms(libMs),
        `${libraryResult!.requests} request, ${libraryResult!.bytes_downloaded} bytes`,
        `<= 50 ms, 1 request, 0 bytes ${libMs <= 50 && warmOk ? 'met' : 'MISSED'}`,
      ],
      [
        'warm: `skill-resolver sync` (whole process)',
        ms(median(processes.map((p) => p.ms))),
        `${warm.requests} request, ${warm.bytes_downloaded} bytes`,
        '',
      ],
      [
        'second task on a warm host cache: `sync` library call (own token, empty DIR)',
        ms(median(secondLibrary)),
        `${secondResult!.requests} request, ${secondResult!.bytes_downloaded} bytes, ` +
          `${secondResult!.skills.filter((x) => x.from === 'cache').length} from the cache`,
        `downloads 0 ${secondOk ? 'met' : 'MISSED'}`,
      ],
      [
        'second task on a warm host cache: `skill-resolver sync` (whole process)',
        ms(median(secondProcesses.map((p) => p.ms))),
        `${secondRun.requests} request, ${secondRun.bytes_downloaded} bytes, ` +
          `${secondRun.skills.filter((x) => x.from === 'cache').length} from the cache`,
        '',
      ],
    ];
    const header = ['sandbox client, 20 skills x 1 MiB', 'median wall', 'work', 'target'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
    return [
      line(header),
      `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
      ...rows.map(line),
      `(cold: ${COLD_ROUNDS} rounds, plain GETs and sync in turn; warm: ${WARM_ROUNDS} rounds each; ` +
        `second task: ${COLD_ROUNDS} rounds each; the process rows include starting Node)`,
    ];
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Alone: a throwaway database and the built service, then the rows. */
async function alone(): Promise<void> {
  const host = await openDatabaseHost(process.env.DATABASE_URL?.trim() || undefined);
  const db = await host.create('client');
  const dataDir = await mkdtemp(join(tmpdir(), 'sr-bench-client-data-'));
  const service = await startService(db.url, dataDir);
  try {
    const lines = await benchClientSync(service.baseUrl, BENCH_ADMIN_KEY, (l) => process.stderr.write(`bench: ${l}\n`));
    process.stdout.write(`database: ${host.kind}\n\n${lines.join('\n')}\n`);
  } finally {
    await service.stop();
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runAlone(module, alone);
