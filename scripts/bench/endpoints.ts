// The task-resolution rows and the ratios the performance targets are stated in: the cheapest
// endpoints, task skills served from the resolution cache (hot), and the same with no resolution
// cached (cold: services started with RESOLUTION_CACHE_ENTRIES=0, so every request resolves), and
// with what teams' ghosts reach and the skill lookups not cached either (no team entry:
// TEAM_SKILLS_CACHE_ENTRIES, SKILL_LOOKUP_CACHE_ENTRIES and CREATOR_CACHE_ENTRIES 0 too).
import { Endpoint } from './load';
import { LookupCount } from './mixed';
import { Ratio } from './report';
import { TaskTarget, SkillTarget } from './targets';

export interface Scenario {
  endpoints: Endpoint[];
  ratios: Ratio[];
}

const auth = (apiKey: string): Record<string, string> => ({ 'x-api-key': apiKey });
const taskPath = (id: number): string => `/api/tasks/${id}/skills`;

/** The services on the 10k and 100k databases: as they run, with no resolution cache, with no cache of either. */
export interface Services {
  small: string;
  large: string;
  coldSmall: string;
  coldLarge: string;
  bareSmall: string;
  bareLarge: string;
}

export function scenario(
  { small, large, coldSmall, coldLarge, bareSmall, bareLarge }: Services,
  targets: { tasks: TaskTarget[]; skills: SkillTarget[] },
  etags: { small: Map<number, string>; large: Map<number, string> },
): Scenario {
  const resolve = (baseUrl: string, label: string): Endpoint => ({
    label: `GET /api/tasks/{id}/skills 200, ${label}`,
    baseUrl,
    requests: targets.tasks.map((t) => ({ method: 'GET', path: taskPath(t.taskId), headers: auth(t.apiKey) })),
    expect: 200,
  });
  /** A cold row, with the hit rate of the teams' entries over its measured runs. */
  const cold = (row: Endpoint): Endpoint => {
    const entries = new LookupCount(row.baseUrl, 'team_skills');
    return { ...row, around: () => entries.measure(), note: () => `team entries hit ${entries.rate()}` };
  };
  const conditional = (t: TaskTarget, scale: keyof typeof etags = 'small'): Record<string, string> => ({
    ...auth(t.apiKey),
    // A task without a known ETag still sends the header, so its 200 shows up in the status column.
    'if-none-match': etags[scale].get(t.taskId) ?? '"none"',
  });
  // The same headers as the 304 row (health ignores them), so both rows cost the load generator
  // and the HTTP parser alike and the ratio compares what the service does with them.
  const health: Endpoint = {
    label: 'GET /api/health/live',
    baseUrl: small,
    requests: targets.tasks.map((t) => ({ method: 'GET', path: '/api/health/live', headers: conditional(t) })),
    expect: 200,
  };
  const oneRow: Endpoint = {
    label: 'GET /api/skills/{id}',
    baseUrl: small,
    requests: targets.skills.map((t) => ({ method: 'GET', path: `/api/skills/${t.skillId}`, headers: auth(t.apiKey) })),
    expect: 200,
  };
  const small200 = resolve(small, '10k skills');
  const notModified = (baseUrl: string, label: string, scale: keyof typeof etags): Endpoint => ({
    label: `GET /api/tasks/{id}/skills 304, ${label}`,
    baseUrl,
    requests: targets.tasks.map((t) => ({ method: 'GET', path: taskPath(t.taskId), headers: conditional(t, scale) })),
    expect: 304,
  });
  const small304 = notModified(small, '10k skills', 'small');
  const large200 = resolve(large, '100k skills');
  const coldRows = [
    cold(resolve(coldSmall, 'cold, 10k skills')),
    cold(notModified(coldSmall, 'cold, 10k skills', 'small')),
    cold(resolve(coldLarge, 'cold, 100k skills')),
    cold(notModified(coldLarge, 'cold, 100k skills', 'large')),
  ];
  const bare = [
    resolve(bareSmall, 'cold, no team entry, 10k skills'),
    resolve(bareLarge, 'cold, no team entry, 100k skills'),
  ];
  return {
    endpoints: [health, oneRow, small200, small304, large200, ...coldRows, ...bare],
    ratios: [
      { row: small200, label: '÷ one-row read', over: small200, under: oneRow, bound: 'min', target: 0.8 },
      { row: small304, label: '÷ health/live', over: small304, under: health, bound: 'min', target: 0.9 },
      // Cost per request is the inverse of req/s: 100k's cost over 10k's is 10k's req/s over 100k's.
      { row: large200, label: 'cost ÷ 10k cost', over: small200, under: large200, bound: 'max', target: 1.2 },
      // Shown, not targeted (docs/benchmarks.md#resolution-rows): a request that reads a task's row
      // does more than the one-row read by its nature.
      ...coldRows.flatMap((row): Ratio[] => [
        { row, label: '÷ one-row read', over: row, under: oneRow },
        { row, label: 'p99 ÷ its p99', over: row, under: oneRow, metric: 'p99' },
      ]),
      // Shown, not targeted: what the first request of each team costs after a change.
      ...bare.map((row): Ratio => ({ row, label: '÷ one-row read', over: row, under: oneRow })),
    ],
  };
}
