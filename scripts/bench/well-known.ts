// The well-known rows of `npm run bench` (docs/benchmarks.md#well-known-index): the index of 1,000
// public skills (about 20 KB each, one of 2 MB) against the one-row read, its 304, and archives of
// a 20 KB and a 2 MB skill, on a database of their own with WELL_KNOWN_INDEX=public. Also, once
// each: the first index after boot (every archive built to learn its digest), the index recomputed
// after a change (digests known), and what building one archive costs here, copying the stored
// entries against deflating the files again. Alone: `node dist/scripts/bench/well-known.js`, with a
// one-row read of its own.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  buildCanonicalZip,
  CanonicalFile,
  compressCanonical,
  writeCanonicalZip,
} from '../../src/package/canonical-zip';
import { manifestRevision, sortManifest } from '../../src/package/manifest';
import { rootArchive } from '../../src/package/root-archive';
import { DatabaseHost, openDatabaseHost } from './database';
import { Endpoint, LoadSettings, measure } from './load';
import { Ratio, renderTable } from './report';
import { BENCH_ADMIN_KEY, RunningService, startService } from './service';
import { runAlone } from './alone';

export const PUBLIC_SKILLS = 1_000;
const LARGE_SKILL = 'bench-well-known-large';
const INDEX = '/.well-known/agent-skills/index.json';
/** Index answers timed after a change, for the median. */
const RECOMPUTES = 21;

type Progress = (line: string) => void;

interface Seeded {
  name: string;
  files: CanonicalFile[];
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

const WORDS = Array.from({ length: 600 }, (_, k) => {
  const syllables = ['ka', 're', 'mo', 'ti', 'lu', 'sen', 'dar', 'vo', 'pi', 'nel', 'gru', 'fa'];
  return [k % 12, Math.floor(k / 12) % 12, Math.floor(k / 144) % 12].map((x) => syllables[x]).join('');
});

/** Text that compresses about as prose does (3-4:1): words drawn from a fixed list, the same on every run. */
function prose(bytes: number, seed: string): Buffer {
  let state = Number.parseInt(sha256(seed).slice(0, 8), 16);
  const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const words: string[] = [];
  for (let n = 0; n < bytes;) {
    const word = WORDS[next() % WORDS.length] + (next() % 11 === 0 ? '.\n' : ' ');
    words.push(word);
    n += word.length;
  }
  return Buffer.from(words.join('')).subarray(0, bytes);
}

/** A typical skill of about 20 KB: SKILL.md, a reference and a script. */
function typicalSkill(i: number): Seeded {
  const name = `bench-wk-${String(i).padStart(4, '0')}`;
  const description =
    `Works with ${name} records: reads them, checks each against its table and reports what differs. ` +
    'Use when the user asks to audit, compare or reconcile records, or names a table the records come from.';
  return {
    name,
    files: [
      {
        path: 'SKILL.md',
        mode: '644',
        data: Buffer.concat([
          Buffer.from(`---\nname: ${name}\ndescription: ${description}\n---\n`),
          prose(4_000, name),
        ]),
      },
      { path: 'references/guide.md', mode: '644', data: prose(14_000, `${name} guide`) },
      {
        path: 'scripts/check.sh',
        mode: '755',
        data: Buffer.concat([Buffer.from('#!/bin/sh\n'), prose(2_000, `# ${name}`)]),
      },
    ],
  };
}

/** One skill of 2 MB: 1 MiB of text and 1 MiB that does not compress. */
function largeSkill(): Seeded {
  const skill = typicalSkill(0);
  return {
    name: LARGE_SKILL,
    files: [
      {
        path: 'SKILL.md',
        mode: '644',
        data: Buffer.from(`---\nname: ${LARGE_SKILL}\ndescription: A large skill.\n---\n# Large\n`),
      },
      { path: 'references/guide.md', mode: '644', data: prose(1024 * 1024, LARGE_SKILL) },
      { path: 'assets/data.bin', mode: '644', data: randomBytes(1024 * 1024) },
      skill.files[2],
    ],
  };
}

function stored(skill: Seeded): { zip: Buffer; contentHash: string; manifest: ReturnType<typeof sortManifest> } {
  const manifest = sortManifest(
    skill.files.map((f) => ({ path: f.path, size: f.data.length, sha256: sha256(f.data), mode: f.mode })),
  );
  const zip = buildCanonicalZip(
    skill.name,
    manifest.map((m) => skill.files.find((f) => f.path === m.path)!),
  );
  return { zip, contentHash: `sha256:${sha256(zip)}`, manifest };
}

/** 999 typical public skills and the large one, as publish would store them, in one transaction. */
async function seed(url: string): Promise<void> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const creator = (await db.query<{ id: number }>('SELECT min(id) AS id FROM users')).rows[0].id;
    await db.query('BEGIN');
    const skills = [...Array.from({ length: PUBLIC_SKILLS - 1 }, (_, i) => typicalSkill(i + 1)), largeSkill()];
    for (const skill of skills) {
      const pkg = stored(skill);
      const skillMd = skill.files[0].data.toString('utf8');
      const description = /\ndescription: (.*)\n/.exec(skillMd)![1];
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO skills (name, namespace, is_public, owner_user_id, created_by_user_id, description, latest_version)
         VALUES ($1, 'default', true, NULL, $2, $3, 1) RETURNING id`,
        [skill.name, creator, description],
      );
      await db.query('INSERT INTO skill_blobs (content_hash, data, size) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        pkg.contentHash,
        pkg.zip,
        pkg.zip.length,
      ]);
      await db.query(
        `INSERT INTO skill_versions (skill_id, version, content_hash, revision, size, file_count, manifest, frontmatter,
                                     skill_md, created_by_user_id, requires)
         VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8, $9, '{"bins": [], "env": []}')`,
        [
          rows[0].id,
          pkg.contentHash,
          manifestRevision(pkg.manifest),
          pkg.zip.length,
          pkg.manifest.length,
          JSON.stringify(pkg.manifest),
          JSON.stringify({ name: skill.name, description }),
          skillMd,
          creator,
        ],
      );
    }
    await db.query('COMMIT');
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

/** User plus system CPU seconds of a process so far (Linux), NaN elsewhere. */
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** One index request: wall and service CPU milliseconds, and its size. */
async function timedIndex(
  service: RunningService,
): Promise<{ wallMs: number; cpuMs: number; bytes: number; skills: number }> {
  const cpu = await cpuSeconds(service.pid);
  const start = performance.now();
  const res = await fetch(`${service.baseUrl}${INDEX}`);
  const body = await res.text();
  const wallMs = performance.now() - start;
  if (res.status !== 200) throw new Error(`the index answered ${res.status}: ${body.slice(0, 200)}`);
  return {
    wallMs,
    cpuMs: ((await cpuSeconds(service.pid)) - cpu) * 1000,
    bytes: Buffer.byteLength(body),
    skills: (JSON.parse(body) as { skills: unknown[] }).skills.length,
  };
}

/** A write that changes nothing the index lists, so the next index answer is computed again. */
async function change(service: RunningService, n: number): Promise<void> {
  const res = await fetch(`${service.baseUrl}/api/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user_name: `bench-wk-change-${n}` }),
  });
  if (res.status !== 201) throw new Error(`a change answered ${res.status}`);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Median CPU milliseconds of building one archive: copying the stored entries, or deflating the files again. */
function buildCosts(): string[] {
  const lines: string[] = [];
  for (const [label, skill, rounds] of [
    ['20 KB skill', typicalSkill(1), 400],
    ['2 MB skill', largeSkill(), 15],
  ] as const) {
    const pkg = stored(skill);
    const ordered = pkg.manifest.map((m) => skill.files.find((f) => f.path === m.path)!);
    const cost = (build: () => Buffer): number => {
      const samples: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const before = process.cpuUsage();
        sha256(build());
        const used = process.cpuUsage(before);
        samples.push((used.user + used.system) / 1000);
      }
      return median(samples);
    };
    const copied = cost(() => rootArchive(pkg.zip, pkg.contentHash, skill.name, pkg.manifest));
    const deflated = cost(() => writeCanonicalZip('', ordered.map(compressCanonical)));
    const expanded = skill.files.reduce((n, f) => n + f.data.length, 0);
    lines.push(
      `archive build, ${label} (${(expanded / 1024).toFixed(0)} KiB expanded, stored zip ${(pkg.zip.length / 1024).toFixed(0)} KiB): ` +
        `copy the stored entries + digest ${copied.toFixed(2)} ms CPU, deflate again + digest ${deflated.toFixed(2)} ms CPU (median of ${rounds})`,
    );
  }
  return lines;
}

export interface WellKnownRows {
  endpoints: Endpoint[];
  ratios: Ratio[];
  /** Printed under the table: the one-off timings. */
  lines: string[];
}

/**
 * A database of 1,000 public skills and the service on it with WELL_KNOWN_INDEX=public; `oneRow`
 * is the one-row read the index row is compared with (the main scenario's, or this service's).
 */
export async function wellKnownRows(
  host: DatabaseHost,
  dataDir: string,
  onCleanup: (step: () => Promise<void>) => void,
  oneRow: Endpoint | undefined,
  progress: Progress,
): Promise<WellKnownRows> {
  const db = await host.create('well-known');
  onCleanup(db.drop);
  const dir = join(dataDir, 'well-known');
  await mkdir(dir, { recursive: true });
  await (await startService(db.url, dir)).stop();
  const seeding = Date.now();
  await seed(db.url);
  progress(`well-known: seeded ${PUBLIC_SKILLS} public skills in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
  const service = await startService(db.url, dir, { WELL_KNOWN_INDEX: 'public' });
  onCleanup(service.stop);

  const first = await timedIndex(service);
  const recomputed: Array<{ wallMs: number; cpuMs: number }> = [];
  for (let n = 0; n < RECOMPUTES; n++) {
    await change(service, n);
    recomputed.push(await timedIndex(service));
  }
  const kept = await timedIndex(service);
  const index = JSON.parse(await (await fetch(`${service.baseUrl}${INDEX}`)).text()) as {
    skills: Array<{ name: string; url: string; digest: string }>;
  };
  const etag = (await fetch(`${service.baseUrl}${INDEX}`)).headers.get('etag')!;
  const archiveOf = (name: string): string =>
    `/.well-known/agent-skills/${index.skills.find((e) => e.name === name)!.url}`;
  const typical = index.skills.filter((e) => e.name !== LARGE_SKILL);
  const admin = { authorization: `Bearer ${BENCH_ADMIN_KEY}` };

  const indexRow: Endpoint = {
    label: `GET ${INDEX}, ${PUBLIC_SKILLS.toLocaleString('en-US')} public skills`,
    baseUrl: service.baseUrl,
    requests: [{ method: 'GET', path: INDEX }],
    expect: 200,
  };
  const notModified: Endpoint = {
    label: `GET ${INDEX} 304`,
    baseUrl: service.baseUrl,
    requests: [{ method: 'GET', path: INDEX, headers: { 'if-none-match': etag } }],
    expect: 304,
  };
  const archive20k: Endpoint = {
    label: 'GET /.well-known/agent-skills/archives/{file}, 20 KB skill',
    baseUrl: service.baseUrl,
    requests: typical.slice(0, 200).map((e) => ({ method: 'GET', path: `/.well-known/agent-skills/${e.url}` })),
    expect: 200,
  };
  const archive2m: Endpoint = {
    label: 'GET /.well-known/agent-skills/archives/{file}, 2 MB skill',
    baseUrl: service.baseUrl,
    requests: [{ method: 'GET', path: archiveOf(LARGE_SKILL) }],
    expect: 200,
  };
  // The same packages through the download route (its stored bytes, no archive built): what building costs on top.
  const idOf = async (name: string): Promise<number> => {
    const res = await fetch(`${service.baseUrl}/api/skills?name=${name}&is_public=true`, { headers: admin });
    return ((await res.json()) as { items: Array<{ id: number }> }).items[0].id;
  };
  const download20k: Endpoint = {
    label: 'GET /api/skills/{id}/download, the same 20 KB skills',
    baseUrl: service.baseUrl,
    requests: await Promise.all(
      typical
        .slice(0, 200)
        .map(async (e) => ({ method: 'GET', path: `/api/skills/${await idOf(e.name)}/download`, headers: admin })),
    ),
    expect: 200,
  };
  const download2m: Endpoint = {
    label: 'GET /api/skills/{id}/download, the same 2 MB skill',
    baseUrl: service.baseUrl,
    requests: [{ method: 'GET', path: `/api/skills/${await idOf(LARGE_SKILL)}/download`, headers: admin }],
    expect: 200,
  };
  const yardstick: Endpoint = oneRow ?? {
    label: 'GET /api/skills/{id}',
    baseUrl: service.baseUrl,
    requests: Array.from({ length: 200 }, (_, i) => ({
      method: 'GET',
      path: `/api/skills/${i + 1}`,
      headers: admin,
    })),
    expect: 200,
  };
  const endpoints = [
    ...(oneRow ? [] : [yardstick]),
    indexRow,
    notModified,
    archive20k,
    download20k,
    archive2m,
    download2m,
  ];
  const ratios: Ratio[] = [
    { row: indexRow, label: '÷ one-row read', over: indexRow, under: yardstick, bound: 'min', target: 0.8 },
    { row: indexRow, label: 'p99 ÷ its p99', over: indexRow, under: yardstick, metric: 'p99', bound: 'max', target: 2 },
    { row: notModified, label: '÷ one-row read', over: notModified, under: yardstick },
    { row: archive20k, label: '÷ the download', over: archive20k, under: download20k },
    { row: archive2m, label: '÷ the download', over: archive2m, under: download2m },
  ];
  const r = recomputed.map((x) => x.wallMs);
  const lines = [
    `well-known index: ${PUBLIC_SKILLS} public skills listed ${first.skills}, ${(first.bytes / 1024).toFixed(0)} KiB; ` +
      `first answer after boot (all ${first.skills} archives built for their digests) ${first.wallMs.toFixed(0)} ms wall, ` +
      `${first.cpuMs.toFixed(0)} ms service CPU; recomputed after a change (digests kept) median ${median(r).toFixed(1)} ms wall ` +
      `(min ${Math.min(...r).toFixed(1)}, max ${Math.max(...r).toFixed(1)}, ${RECOMPUTES} changes), median ` +
      `${median(recomputed.map((x) => x.cpuMs)).toFixed(0)} ms service CPU; kept (no change) ${kept.wallMs.toFixed(1)} ms wall`,
    ...buildCosts(),
  ];
  return { endpoints, ratios, lines };
}

/** Alone: a throwaway database and the built service, this module's rows and its own one-row read. */
async function alone(): Promise<void> {
  const progress: Progress = (line) => process.stderr.write(`bench: ${line}\n`);
  const steps: Array<() => Promise<void>> = [];
  const host = await openDatabaseHost(process.env.DATABASE_URL?.trim() || undefined);
  const dataDir = await mkdtemp(join(tmpdir(), 'sr-bench-well-known-'));
  try {
    const rows = await wellKnownRows(host, dataDir, (step) => steps.push(step), undefined, progress);
    const seconds = (name: string, fallback: number): number => Number(process.env[name]?.trim() || fallback);
    const settings: LoadSettings = {
      connections: 10,
      seconds: seconds('BENCH_SECONDS', 10),
      warmupSeconds: seconds('BENCH_WARMUP_SECONDS', 2),
      roundSeconds: seconds('BENCH_ROUND_SECONDS', 2),
    };
    const results = await measure(rows.endpoints, settings, progress);
    process.stdout.write(
      [
        `database: ${host.kind}; node ${process.version}`,
        '',
        renderTable(results, rows.ratios),
        '',
        ...rows.lines,
      ].join('\n') + '\n',
    );
  } finally {
    for (let step = steps.pop(); step; step = steps.pop()) await step();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runAlone(module, alone);
