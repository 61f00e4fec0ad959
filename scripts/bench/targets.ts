// What the load asks for: tasks read by their creators, and one-row skill reads by the same users,
// so every request is authorized and the two paths differ only in the work behind them.
import { groupsOf, userId, users } from './catalog';
import { Reach, Resources } from './resources';

export interface TaskTarget {
  taskId: number;
  apiKey: string;
}

export interface SkillTarget {
  skillId: number;
  apiKey: string;
}

export interface TaskProbe {
  /** The ETag of each task's resolution; absent when it did not answer 200. */
  etags: Map<number, string>;
  statuses: Map<number, number>;
  /** Mean `skills` and `unresolved` lengths over the tasks that answered 200. */
  skills: number;
  unresolved: number;
}

interface TaskSkills {
  skills?: unknown[];
  unresolved?: unknown[];
}

/** Every second task (all teams, every kind of selection), and a readable skill per creator. */
export function loadTargets(work: Resources, reach: Reach): { tasks: TaskTarget[]; skills: SkillTarget[] } {
  const keys = new Map(users().map((u) => [u.id, u.apiKey]));
  const userIndex = (id: number): number => id - userId(0);
  const tasks = work.tasks.filter((t) => t.id % 2 === 0);
  return {
    tasks: tasks.map((t) => ({ taskId: t.id, apiKey: keys.get(t.ownerUserId)! })),
    skills: tasks.map((t, i) => {
      const u = userIndex(t.ownerUserId);
      // Personal, group and public reads in turn: each one row plus an access check.
      const pool = [reach.personal(u), reach.inGroup(groupsOf(u)[0]), reach.public][i % 3];
      return { skillId: pool[i % pool.length].id, apiKey: keys.get(t.ownerUserId)! };
    }),
  };
}

/** Reads each task's resolution once: the ETags for the 304 path, and what the data set resolves to. */
export async function probeTasks(baseUrl: string, targets: TaskTarget[], concurrency = 10): Promise<TaskProbe> {
  const probe: TaskProbe = { etags: new Map(), statuses: new Map(), skills: 0, unresolved: 0 };
  let next = 0;
  let resolved = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length) {
      const target = targets[next++];
      const res = await fetch(`${baseUrl}/api/tasks/${target.taskId}/skills`, {
        headers: { 'x-api-key': target.apiKey },
      });
      probe.statuses.set(res.status, (probe.statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      if (res.status !== 200) continue;
      const body = JSON.parse(text) as TaskSkills;
      const etag = res.headers.get('etag');
      if (etag) probe.etags.set(target.taskId, etag);
      probe.skills += body.skills?.length ?? 0;
      probe.unresolved += body.unresolved?.length ?? 0;
      resolved++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (resolved > 0) {
    probe.skills /= resolved;
    probe.unresolved /= resolved;
  }
  return probe;
}
