// The cold rows with skill bindings: one more 10k database, the same data plus bindings on the
// creators and the team groups of two disjoint sets of tasks (10 user + 10 group bindings on one,
// 100 + 100 on the other), and a service on it caching no resolution.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import { groupName, groupsOf, Skill, userId, users } from './catalog';
import { DatabaseHost } from './database';
import { LookupCount } from './mixed';
import { Endpoint } from './load';
import { Ratio } from './report';
import { Reach, Resources, Task } from './resources';
import { seed } from './seed';
import { RunningService, startService } from './service';
import { probeTasks, TaskProbe, TaskTarget } from './targets';

/** Bindings per target (the creator, the team group) of each set. */
export const BINDING_COUNTS = [10, 100] as const;

interface Binding {
  skillId: number;
  userId: number | null;
  groupId: number | null;
  preload: boolean;
  exceptions: Array<{ type: 'mode' | 'team'; value: string }>;
  createdBy: number;
}

interface BindingSet {
  n: number;
  tasks: TaskTarget[];
}

/**
 * Group teams in turn get 10 or 100 bindings on their group; each creator gets the count of the
 * first group team they create a task in. A set's tasks are the tasks whose creator and team group
 * have its count, so no target sees bindings of the other set.
 */
function assign(work: Resources): { teamCount: Map<number, number>; userCount: Map<number, number> } {
  const teamCount = new Map<number, number>();
  const userCount = new Map<number, number>();
  work.teams.forEach((team, t) => {
    if (team.namespace !== 'default') teamCount.set(team.id, BINDING_COUNTS[t % 2]);
  });
  for (const task of work.tasks) {
    const n = teamCount.get(task.teamId);
    if (n !== undefined && !userCount.has(task.ownerUserId)) userCount.set(task.ownerUserId, n);
  }
  return { teamCount, userCount };
}

/** Names the task's other sources name: its team's ghosts and its own labels (roughly: any value). */
function namedBy(work: Resources, teamId: number, tasks: Task[]): Set<string> {
  const named = new Set<string>();
  const team = work.teams.find((t) => t.id === teamId)!;
  for (const { bot_id } of team.members) {
    const ghost = work.ghosts.find((g) => g.id === bot_id)!;
    for (const name of [...ghost.skills, ...ghost.preloadSkills]) named.add(name);
  }
  for (const task of tasks) {
    for (const value of Object.values(task.labels)) {
      for (const match of value.matchAll(/"name":"([^"]+)"|"([a-z]+-[0-9]+)"/g)) named.add(match[1] ?? match[2]);
    }
  }
  return named;
}

/**
 * `n` skills from the pools in turn (a rotating start), skipping names already bound and, but for
 * one in twenty, names another source of the target's tasks names: those the binding cannot decide.
 */
function pick(pools: Skill[][], n: number, start: number, named: Set<string>, used: Set<string>): Skill[] {
  const out: Skill[] = [];
  const cursors = pools.map((p) => (p.length ? start % p.length : 0));
  const seen = pools.map(() => 0);
  for (let turn = 0; out.length < n && seen.some((s, i) => s < pools[i].length); turn++) {
    const k = turn % pools.length;
    const pool = pools[k];
    if (seen[k] >= pool.length) continue;
    const skill = pool[(cursors[k] + seen[k]++) % pool.length];
    if (used.has(skill.name) || (named.has(skill.name) && out.length % 20 !== 7)) continue;
    used.add(skill.name);
    out.push(skill);
  }
  return out;
}

/** A quarter preloaded; one in ten with exceptions, one in thirty of them matching the task's team. */
function binding(skill: Skill, k: number, target: Pick<Binding, 'userId' | 'groupId' | 'createdBy'>, team: number) {
  const exceptions: Binding['exceptions'] =
    k % 10 === 3
      ? [
          { type: 'mode', value: 'review' },
          { type: 'team', value: String(k % 30 === 3 ? team : 0) },
        ]
      : [];
  return { ...target, skillId: skill.id, preload: k % 4 === 1, exceptions };
}

export function bindings(work: Resources, reach: Reach): { rows: Binding[]; sets: BindingSet[] } {
  const { teamCount, userCount } = assign(work);
  const keys = new Map(users().map((u) => [u.id, u.apiKey]));
  const rows: Binding[] = [];
  const sets: BindingSet[] = BINDING_COUNTS.map((n) => ({ n, tasks: [] }));
  const used = new Map<number, Set<string>>();
  for (const team of work.teams) {
    const n = teamCount.get(team.id);
    if (n === undefined) continue;
    const tasks = work.tasks.filter((t) => t.teamId === team.id);
    const named = namedBy(work, team.id, tasks);
    const group = groupIdOf(team.namespace);
    const names = new Set<string>();
    pick([reach.inGroup(group - 1), reach.public], n, team.id * 17, named, names).forEach((s, k) =>
      rows.push(binding(s, k, { userId: null, groupId: group, createdBy: userId(group - 1) }, team.id)),
    );
    for (const task of tasks) {
      if (userCount.get(task.ownerUserId) !== n) continue;
      sets[BINDING_COUNTS.indexOf(n as 10 | 100)].tasks.push({ taskId: task.id, apiKey: keys.get(task.ownerUserId)! });
      if (used.has(task.ownerUserId)) continue;
      // The creator's own bindings: personal skills, skills of their groups, public ones.
      const u = task.ownerUserId - userId(0);
      const mine = new Set(names);
      used.set(task.ownerUserId, mine);
      const pools = [reach.personal(u), ...groupsOf(u).map((g) => reach.inGroup(g)), reach.public];
      pick(pools, n, u * 31, named, mine).forEach((s, k) =>
        rows.push(binding(s, k, { userId: task.ownerUserId, groupId: null, createdBy: task.ownerUserId }, team.id)),
      );
    }
  }
  return { rows, sets };
}

function groupIdOf(namespace: string): number {
  for (let g = 0; ; g++) if (groupName(g) === namespace) return g + 1;
}

export async function seedBindings(url: string, rows: Binding[]): Promise<void> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO skill_bindings (skill_id, user_id, group_id, preload, exceptions, created_by_user_id)
       SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::bool[], $5::jsonb[], $6::int[])`,
      [
        rows.map((r) => r.skillId),
        rows.map((r) => r.userId),
        rows.map((r) => r.groupId),
        rows.map((r) => r.preload),
        rows.map((r) => JSON.stringify(r.exceptions)),
        rows.map((r) => r.createdBy),
      ],
    );
    await db.query('ANALYZE skill_bindings');
  } finally {
    await db.end();
  }
}

export interface BoundRows {
  endpoints: Endpoint[];
  ratios: Ratio[];
  probes: Array<[label: string, probe: TaskProbe]>;
  description: string;
}

/**
 * Seeds the bindings database and starts its cold service (`onStop` gets each undo step), then
 * the rows: 200 and 304 for each set, compared with the one-row read as the cold rows are.
 */
export async function bindingRows(
  host: DatabaseHost,
  layer: Skill[],
  work: Resources,
  reach: Reach,
  dataDir: string,
  onStop: (step: () => Promise<void>) => void,
  oneRow: Endpoint,
  progress: (line: string) => void,
): Promise<BoundRows> {
  const start = Date.now();
  const db = await host.create('10k-bindings');
  onStop(db.drop);
  const dir = join(dataDir, '10k-bindings');
  await mkdir(dir);
  await (await startService(db.url, dir)).stop();
  const { rows, sets } = bindings(work, reach);
  await seed(db.url, [layer], work);
  await seedBindings(db.url, rows);
  progress(`10k-bindings: seeded with ${rows.length} bindings in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  const cold: RunningService = await startService(db.url, dir, { RESOLUTION_CACHE_ENTRIES: '0' });
  onStop(cold.stop);
  const endpoints: Endpoint[] = [];
  const ratios: Ratio[] = [];
  const probes: BoundRows['probes'] = [];
  for (const set of sets) {
    const label = `cold, 10k skills, ${set.n}+${set.n} bindings`;
    const probe = await probeTasks(cold.baseUrl, set.tasks);
    probes.push([`10k, ${set.n}+${set.n} bindings`, probe]);
    const path = (t: TaskTarget): string => `/api/tasks/${t.taskId}/skills`;
    const row = (status: 200 | 304): Endpoint => {
      const entries = new LookupCount(cold.baseUrl, 'team_skills');
      return {
        label: `GET /api/tasks/{id}/skills ${status}, ${label}`,
        baseUrl: cold.baseUrl,
        requests: set.tasks.map((t) => ({
          method: 'GET',
          path: path(t),
          headers: {
            'x-api-key': t.apiKey,
            ...(status === 304 ? { 'if-none-match': probe.etags.get(t.taskId) ?? '"none"' } : {}),
          },
        })),
        expect: status,
        around: () => entries.measure(),
        note: () => `team entries hit ${entries.rate()}`,
      };
    };
    for (const r of [row(200), row(304)]) {
      endpoints.push(r);
      ratios.push(
        { row: r, label: '÷ one-row read', over: r, under: oneRow },
        { row: r, label: 'p99 ÷ its p99', over: r, under: oneRow, metric: 'p99' },
      );
    }
  }
  const description = sets.map((s) => `${s.tasks.length} tasks with ${s.n}+${s.n}`).join(', ');
  return { endpoints, ratios, probes, description: `bindings rows: ${rows.length} bindings; ${description}` };
}

/** False when BENCH_ROWS matches none of the binding rows: then their database is not made. */
export function bindingRowsWanted(): boolean {
  const pattern = process.env.BENCH_ROWS?.trim();
  if (!pattern) return true;
  const match = new RegExp(pattern, 'i');
  return BINDING_COUNTS.some((n) =>
    [200, 304].some((s) => match.test(`GET /api/tasks/{id}/skills ${s}, cold, 10k skills, ${n}+${n} bindings`)),
  );
}
