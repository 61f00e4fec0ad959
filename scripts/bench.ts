// `npm run bench`: times the embedded database's first and later boot, seeds throwaway databases at
// 10k and 100k skills, runs the built service on each (twice: as configured, and with no
// resolution cache for the cold rows) and prints one table comparing the task-resolution paths
// with the cheapest endpoints, then the sandbox client's rows (bench/client-sync.ts) and the sandbox
// start storm (bench/sandbox-storm.ts).
// BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2) and BENCH_ROUND_SECONDS (2) set the durations;
// BENCH_ROWS (a regular expression) keeps only the rows whose label matches it, with the rows their
// ratios compare against, and skips the client rows and the storm. The well-known rows
// (bench/well-known.ts) run on a database of 1,000 public skills of their own.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureEmbeddedBoot, renderBoots } from './bench/boot';
import { bindingRows, bindingRowsWanted } from './bench/bindings';
import { benchClientSync } from './bench/client-sync';
import { benchSandboxStorm } from './bench/sandbox-storm';
import { groups, memberships, NO_SKILLS, skillCounts, skillLayer, Skill, USERS } from './bench/catalog';
import { DatabaseHost, openDatabaseHost } from './bench/database';
import { discoveryScenario, referenceSkillId, seedDiscovery } from './bench/discovery';
import { scenario } from './bench/endpoints';
import { freshTaskRows } from './bench/fresh-tasks';
import { Endpoint, LoadSettings, measure } from './bench/load';
import { mixedEndpoint } from './bench/mixed';
import { packageStorageRows } from './bench/package-storage';
import { Ratio, renderHeader, renderTable } from './bench/report';
import { Reach, Resources, resources } from './bench/resources';
import { seed } from './bench/seed';
import { BENCH_ADMIN_KEY, RunningService, startService } from './bench/service';
import { loadTargets, probeTasks } from './bench/targets';
import { wellKnownRows } from './bench/well-known';

const SMALL = 10_000;
const LARGE = 100_000;
const CONNECTIONS = 10;

/** Undo steps, run last first: a service stops before its database goes. */
const cleanup: Array<() => Promise<void>> = [];
let cleaning: Promise<void> | undefined;
let interrupted = false;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (let step = cleanup.pop(); step; step = cleanup.pop()) {
      await step().catch((err: unknown) => progress(`cleanup failed: ${(err as Error).message}`));
    }
  })();
  return cleaning;
}

function seconds(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  const value = raw ? Number(raw) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds`);
  return value;
}

function progress(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

const since = (start: number): string => `${((Date.now() - start) / 1000).toFixed(1)} s`;
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * A migrated, seeded database with the service running on it, a second one caching no resolution,
 * and a third caching neither resolutions nor what teams' ghosts reach.
 */
async function prepare(
  host: DatabaseHost,
  label: string,
  layers: Skill[][],
  work: Resources,
  dataDir: string,
): Promise<{ hot: RunningService; cold: RunningService; bare: RunningService }> {
  const db = await host.create(label);
  cleanup.push(db.drop);
  const dir = join(dataDir, label);
  await mkdir(dir);
  let start = Date.now();
  // The service migrates at boot; it is stopped while seeding so nothing it caches predates the data.
  await (await startService(db.url, dir)).stop();
  progress(`${label}: migrated in ${since(start)}`);
  start = Date.now();
  await seed(db.url, layers, work);
  await seedDiscovery(db.url);
  progress(`${label}: seeded ${count(layers.flat().length)} skills in ${since(start)}`);
  const hot = await startService(db.url, dir);
  cleanup.push(hot.stop);
  const coldDir = join(dataDir, `${label}-cold`);
  await mkdir(coldDir);
  const cold = await startService(db.url, coldDir, { RESOLUTION_CACHE_ENTRIES: '0' });
  cleanup.push(cold.stop);
  const bareDir = join(dataDir, `${label}-bare`);
  await mkdir(bareDir);
  const bare = await startService(db.url, bareDir, {
    RESOLUTION_CACHE_ENTRIES: '0',
    TEAM_SKILLS_CACHE_ENTRIES: '0',
    SKILL_LOOKUP_CACHE_ENTRIES: '0',
    CREATOR_CACHE_ENTRIES: '0',
    NEW_TASK_CACHE_ENTRIES: '0',
  });
  cleanup.push(bare.stop);
  return { hot, cold, bare };
}

/** The rows BENCH_ROWS matches, with every row their ratios compare against. */
function selectRows(endpoints: Endpoint[], ratios: Ratio[]): { endpoints: Endpoint[]; ratios: Ratio[] } {
  const pattern = process.env.BENCH_ROWS?.trim();
  if (!pattern) return { endpoints, ratios };
  const match = new RegExp(pattern, 'i');
  const kept = new Set(endpoints.filter((e) => match.test(e.label)));
  const keptRatios = ratios.filter((r) => kept.has(r.row));
  for (const r of keptRatios) kept.add(r.over).add(r.under);
  return { endpoints: endpoints.filter((e) => kept.has(e)), ratios: keptRatios };
}

function describeData(work: Resources): string {
  const skills = (n: number): string => {
    const c = skillCounts(n);
    return `${count(n)} (${count(c.public)} public, ${count(c.perGroup)} per group, ${count(c.perUser)} per user)`;
  };
  return (
    `${count(USERS)} users with API keys, ${groups().length} groups, ${count(memberships().length)} memberships; ` +
    `skills ${skills(SMALL)} or ${skills(LARGE)}, 1% deleted; ${count(work.ghosts.length)} ghosts x 20 names, ` +
    `${work.teams.length} teams of 3 bots, ${count(work.tasks.length)} tasks, ${work.subscriptions.length} ` +
    `subscriptions, ${count(work.executions.length)} background executions`
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  const settings: LoadSettings = {
    connections: CONNECTIONS,
    seconds: seconds('BENCH_SECONDS', 10),
    warmupSeconds: seconds('BENCH_WARMUP_SECONDS', 2),
    roundSeconds: seconds('BENCH_ROUND_SECONDS', 2),
  };
  try {
    const host = await openDatabaseHost(process.env.DATABASE_URL?.trim() || undefined);
    const dataDir = await mkdtemp(join(tmpdir(), 'sr-bench-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    progress('embedded boot: first and later');
    const bootDir = join(dataDir, 'boot');
    await mkdir(bootDir);
    const boots = await measureEmbeddedBoot(bootDir);
    const base = skillLayer(NO_SKILLS, skillCounts(SMALL), 1);
    const growth = skillLayer(skillCounts(SMALL), skillCounts(LARGE), SMALL + 1);
    const reach = new Reach(base);
    const work = resources(reach);
    const { hot: small, cold: coldSmall, bare: bareSmall } = await prepare(host, '10k', [base], work, dataDir);
    const { hot: large, cold: coldLarge, bare: bareLarge } = await prepare(host, '100k', [base, growth], work, dataDir);

    const targets = loadTargets(work, reach);
    const probeSmall = await probeTasks(small.baseUrl, targets.tasks);
    const probeLarge = await probeTasks(large.baseUrl, targets.tasks);
    const services = {
      small: small.baseUrl,
      large: large.baseUrl,
      coldSmall: coldSmall.baseUrl,
      coldLarge: coldLarge.baseUrl,
      bareSmall: bareSmall.baseUrl,
      bareLarge: bareLarge.baseUrl,
    };
    const main = scenario(services, targets, { small: probeSmall.etags, large: probeLarge.etags });
    const mixed = [
      await mixedEndpoint(small.baseUrl, '10k skills', targets.tasks, work.teams.length, reach.public[0].name),
      await mixedEndpoint(large.baseUrl, '100k skills', targets.tasks, work.teams.length, reach.public[0].name),
    ];
    const reference = await referenceSkillId(small.baseUrl, targets.skills[0].apiKey);
    const oneRow = main.endpoints.find((e) => e.label === 'GET /api/skills/{id}')!;
    const discovery = discoveryScenario(small.baseUrl, large.baseUrl, targets.skills, reference, oneRow);
    const bound = bindingRowsWanted()
      ? await bindingRows(host, base, work, reach, dataDir, (step) => cleanup.push(step), oneRow, progress)
      : undefined;
    const wellKnown = await wellKnownRows(host, dataDir, (step) => cleanup.push(step), oneRow, progress);
    const fresh = freshTaskRows(small.baseUrl, work, reach, coldSmall.baseUrl);
    const freshRatios = fresh.flatMap((row): Ratio[] => [
      { row, label: '÷ one-row read', over: row, under: oneRow },
      { row, label: 'p99 ÷ its p99', over: row, under: oneRow, metric: 'p99' },
    ]);
    const { endpoints, ratios } = selectRows(
      [
        ...main.endpoints,
        ...(bound?.endpoints ?? []),
        ...fresh,
        ...mixed,
        ...discovery.endpoints,
        ...wellKnown.endpoints,
      ],
      [...main.ratios, ...(bound?.ratios ?? []), ...freshRatios, ...discovery.ratios, ...wellKnown.ratios],
    );
    const results = await measure(endpoints, settings, progress);
    const header = renderHeader({
      databaseKind: host.kind,
      data: describeData(work),
      probes: [['10k', probeSmall], ['100k', probeLarge], ...(bound?.probes ?? [])],
      tasks: targets.tasks.length,
      skills: targets.skills.length,
      settings,
    });
    header.push(
      'cold rows: a second service on the same database with RESOLUTION_CACHE_ENTRIES=0 (every request resolves; ' +
        'credentials, what each team\'s ghosts reach and the skill lookups stay cached until a change); "no team ' +
        'entry" rows: a third with TEAM_SKILLS_CACHE_ENTRIES, SKILL_LOOKUP_CACHE_ENTRIES, CREATOR_CACHE_ENTRIES and ' +
        'NEW_TASK_CACHE_ENTRIES 0 as well (every ' +
        'request loads everything, as the first one after a change does); mixed rows: the service as configured, ' +
        'with a writer',
    );
    if (bound) header.push(bound.description);
    const client = process.env.BENCH_ROWS?.trim()
      ? []
      : await benchClientSync(small.baseUrl, BENCH_ADMIN_KEY, progress);
    const storm = process.env.BENCH_ROWS?.trim()
      ? []
      : await benchSandboxStorm(small.baseUrl, BENCH_ADMIN_KEY, progress, async () => [small.pid]);
    const storage = process.env.BENCH_ROWS?.trim() ? [] : await packageStorageRows(host, settings, progress);
    const footer = `run took ${since(started)} before cleanup`;
    const table = renderTable(results, ratios);
    process.stdout.write(
      [
        ...header,
        '',
        table,
        '',
        ...wellKnown.lines,
        '',
        ...renderBoots(boots),
        '',
        ...client,
        '',
        ...storm,
        '',
        ...storage,
        '',
        footer,
      ].join('\n') + '\n',
    );
  } finally {
    await cleanUp();
  }
}

process.once('SIGINT', () => {
  interrupted = true;
  void cleanUp().finally(() => process.exit(130));
});

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (interrupted) return; // the SIGINT handler exits once everything is cleaned up
    process.stderr.write(`bench failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
