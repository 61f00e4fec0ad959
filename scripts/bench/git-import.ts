// An import from git of a ~5 MB skill (files of random bytes, so nothing compresses) against a git
// server on loopback, and what it costs everyone else: GET /api/health/live sampled every 10 ms
// while each import runs, against the same sampling with nothing running
// (docs/publishing.md#importing-from-git). The service runs as production does, on its embedded
// database or the PostgreSQL server named: `node dist/scripts/bench/git-import.js [runs] [database-url]`.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { GitTestServer } from '../../test/support/git-server';
import { probeEventLoop } from '../../test/support/event-loop-probe';
import { BENCH_ADMIN_KEY, startService } from './service';

const SAMPLE_EVERY_MS = 10;
const FILES = 5;
const FILE_BYTES = 1024 * 1024;
const IDLE_MS = 2_000;

interface Sampled {
  samples: number[];
  maxMs: number;
  p99Ms: number;
}

/** Samples the service's `/api/health/live` from another process until `until` settles. */
async function sampleLive(baseUrl: string, until: () => Promise<unknown>): Promise<Sampled> {
  const probe = await probeEventLoop(Number(new URL(baseUrl).port), SAMPLE_EVERY_MS);
  try {
    await until();
  } catch (err) {
    await probe.stop();
    throw err;
  }
  return summary((await probe.stop()).samples);
}

function summary(samples: number[]): Sampled {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    samples,
    maxMs: sorted[sorted.length - 1] ?? 0,
    p99Ms: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0,
  };
}

const ms = (value: number): string => value.toFixed(1);

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const databaseUrl = process.argv[3];
  const git = await GitTestServer.start();
  const dataDir = await mkdtemp(join(tmpdir(), 'sr-bench-git-'));
  const service = await startService(databaseUrl, dataDir, { GIT_ALLOWED_HOSTS: `http://${git.host}` });
  try {
    const live = service.baseUrl;
    const repos: string[] = [];
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      const name = `bench-git-${i}`;
      const repo = await git.createRepo(name);
      const tree: Record<string, string | Buffer> = {
        'SKILL.md': `---\nname: ${name}\ndescription: A 5 MB skill imported from git.\n---\n# ${name}\n`,
      };
      for (let f = 0; f < FILES; f++) tree[`data/part-${f}.bin`] = randomBytes(FILE_BYTES);
      bytes = Object.values(tree).reduce((sum, v) => sum + Buffer.byteLength(v), 0);
      await repo.commit(tree);
      repos.push(repo.url);
    }

    const idle = await sampleLive(live, () => new Promise((r) => setTimeout(r, IDLE_MS)));
    const rows: string[] = [
      `git import of a ${(bytes / 1024 / 1024).toFixed(2)} MiB skill (${FILES} files of random bytes), loopback git server, ${databaseUrl ? 'PostgreSQL server' : 'embedded database'}`,
      '',
      '| run | import | status | live samples | live max | live p99 |',
      '| --- | -----: | -----: | -----------: | -------: | -------: |',
      `| idle (${IDLE_MS / 1000} s, nothing running) | - | - | ${idle.samples.length} | ${ms(idle.maxMs)} ms | ${ms(idle.p99Ms)} ms |`,
    ];
    const during: number[] = [];
    for (const [i, url] of repos.entries()) {
      let result = { status: 0, body: '', ms: 0 };
      const sampled = await sampleLive(live, async () => {
        const start = performance.now();
        const res = await fetch(`${service.baseUrl}/api/skills/imports`, {
          method: 'POST',
          headers: { 'x-api-key': BENCH_ADMIN_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ url }),
        });
        result = { status: res.status, body: await res.text(), ms: performance.now() - start };
      });
      if (result.status !== 201) throw new Error(`import ${i}: ${result.status} ${result.body}`);
      during.push(...sampled.samples);
      rows.push(
        `| import ${i + 1} | ${ms(result.ms)} ms | ${result.status} | ${sampled.samples.length} | ${ms(sampled.maxMs)} ms | ${ms(sampled.p99Ms)} ms |`,
      );
    }
    const all = summary(during);
    rows.push(
      '',
      `live during the imports: ${during.length} samples, max ${ms(all.maxMs)} ms, p99 ${ms(all.p99Ms)} ms (bound: 50 ms)`,
    );
    process.stdout.write(`${rows.join('\n')}\n`);
    if (all.maxMs >= 50 || all.p99Ms >= 50) process.exitCode = 1;
  } finally {
    await service.stop();
    await git.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
