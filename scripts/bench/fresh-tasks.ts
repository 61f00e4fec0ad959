// The first-request rows: tasks no one asked for before. Before every run of the row (warm-up and
// measured rounds alike) a fresh set of tasks is created through the API, each selecting two public
// catalog skills as explicit refs, by a member of its team; the run then hands out each task once
// (one shared queue for every connection), so every request is the task's first resolution, on
// the service as configured (resolution cache on). One row puts every task on one team (its
// ghosts decided once, then kept), another spreads them over every team; the third is the first
// with the tasks created through another replica, so the service reading them never saw them made.
import type autocannon from 'autocannon';
import { users } from './catalog';
import { Endpoint } from './load';
import { Reach, Resources } from './resources';

/**
 * Tasks created before each run: more than a run of 2 s asks for (a run that asks for more reports
 * the overrun and no ratio), and fewer than the service keeps of the tasks created through it
 * (NEW_TASK_CACHE_ENTRIES, 10,000 by default): the first created would be pushed out by the last.
 */
const TASKS_PER_RUN = Number(process.env.BENCH_FRESH_TASKS ?? 9_000);
const CREATORS = 10;

interface Fresh {
  taskId: number;
  apiKey: string;
}

/** What the rows did, for the note: tasks created, asked for, and requests past the end of the set. */
class FreshCount {
  created = 0;
  asked = 0;
  overrun = 0;
  describe(): string {
    const over = this.overrun > 0 ? `, ${this.overrun} past the set (404)` : '';
    return `${this.asked.toLocaleString('en-US')} of ${this.created.toLocaleString('en-US')} fresh tasks asked once${over}`;
  }
}

async function createTasks(
  baseUrl: string,
  plan: Array<{ teamId: number; apiKey: string; labels: Record<string, string> }>,
): Promise<Fresh[]> {
  const out = new Array<Fresh>(plan.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.length) {
      const i = next++;
      const p = plan[i];
      const res = await fetch(`${baseUrl}/api/tasks`, {
        method: 'POST',
        headers: { 'x-api-key': p.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ team_id: p.teamId, title: `fresh ${i}`, labels: p.labels }),
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`POST /api/tasks answered ${res.status}: ${text.slice(0, 200)}`);
      out[i] = { taskId: (JSON.parse(text) as { id: number }).id, apiKey: p.apiKey };
    }
  };
  await Promise.all(Array.from({ length: CREATORS }, worker));
  return out;
}

/**
 * `teams`: the team ids the tasks go to, in turn; each task's creator is one of the members who
 * created the team's loaded tasks.
 */
function freshRow(
  baseUrl: string,
  label: string,
  teams: number[],
  work: Resources,
  reach: Reach,
  createdThrough = baseUrl,
): Endpoint {
  const keys = new Map(users().map((u) => [u.id, u.apiKey]));
  const creators = new Map<number, string[]>();
  for (const t of work.tasks) {
    const list = creators.get(t.teamId) ?? [];
    const key = keys.get(t.ownerUserId)!;
    if (!list.includes(key)) list.push(key);
    creators.set(t.teamId, list);
  }
  const pub = reach.public;
  const count = new FreshCount();
  let batch = 0;
  let queue: Fresh[] = [];
  let at = 0;
  const prepare = async (): Promise<void> => {
    const b = batch++;
    const plan = Array.from({ length: TASKS_PER_RUN }, (_, i) => {
      const n = b * TASKS_PER_RUN + i;
      const teamId = teams[n % teams.length];
      const crew = creators.get(teamId)!;
      const refs = [pub[(n * 13) % pub.length], pub[(n * 7 + 1) % pub.length]].map((s) => ({
        name: s.name,
        namespace: 'default',
        is_public: true,
      }));
      return { teamId, apiKey: crew[n % crew.length], labels: { requestedSkillRefs: JSON.stringify(refs) } };
    });
    queue = await createTasks(createdThrough, plan);
    at = 0;
  };
  const requests = [
    {
      method: 'GET',
      setupRequest: (request: autocannon.Request): autocannon.Request => {
        const t = queue[at++];
        if (!t) {
          count.overrun++;
          return { ...request, path: '/api/tasks/2147483647/skills', headers: { 'x-api-key': queue[0].apiKey } };
        }
        return { ...request, path: `/api/tasks/${t.taskId}/skills`, headers: { 'x-api-key': t.apiKey } };
      },
    },
  ];
  return {
    label: `GET /api/tasks/{id}/skills 200, first request of fresh tasks, ${label}, 10k skills`,
    baseUrl,
    requests,
    expect: 200,
    prepare,
    around: async () => {
      count.created += queue.length;
      // The set was made for this run alone: whatever it handed out, it handed out once.
      return () => {
        count.asked += Math.min(at, queue.length);
        return Promise.resolve();
      };
    },
    note: () => count.describe(),
  };
}

/**
 * The first-request rows on the service as configured: one team, every team, and one team with the
 * tasks created through `otherReplica` (another service on the same database).
 */
export function freshTaskRows(baseUrl: string, work: Resources, reach: Reach, otherReplica: string): Endpoint[] {
  return [
    freshRow(baseUrl, 'one team', [1], work, reach),
    freshRow(baseUrl, 'one team, created through another replica', [1], work, reach, otherReplica),
    freshRow(
      baseUrl,
      `${work.teams.length} teams`,
      work.teams.map((t) => t.id),
      work,
      reach,
    ),
  ];
}
