// The mixed row: what a fleet of sandboxes does between writes made elsewhere. Readers ask for
// tasks drawn at random (with repeats) from the 1,000 loaded, while a writer makes 5 changes a
// second that no read task depends on: in turn, it rewrites a ghost of its own that is on no team,
// and creates a task on one of the teams. The row reports throughput and the resolution cache's hit
// rate over its measured runs, read from /api/metrics before and after each.
import type autocannon from 'autocannon';
import { Endpoint } from './load';
import { BENCH_ADMIN_KEY } from './service';
import { TaskTarget } from './targets';

const WRITES_PER_SECOND = 5;

const admin = { 'x-api-key': BENCH_ADMIN_KEY, 'content-type': 'application/json' };

async function call(baseUrl: string, method: string, path: string, body?: unknown): Promise<string> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: admin,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** A cache's hits and misses so far (`resolution`, `team_skills`). */
async function lookups(baseUrl: string, cache = 'resolution'): Promise<{ hit: number; miss: number }> {
  const metrics = await call(baseUrl, 'GET', '/api/metrics');
  const read = (result: string): number => {
    const line = new RegExp(
      `^skill_resolver_cache_lookups_total\\{cache="${cache}",result="${result}"\\} (\\S+)$`,
      'm',
    );
    return Number(line.exec(metrics)?.[1] ?? 0);
  };
  return { hit: read('hit'), miss: read('miss') };
}

/** A cache's lookups over the measured runs of a row: `measure` around each run, `rate` after. */
export class LookupCount {
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly cache = 'resolution',
  ) {}

  /** Reads the counters now; the function returned adds what happened until it is called. */
  async measure(): Promise<() => Promise<void>> {
    const before = await lookups(this.baseUrl, this.cache);
    return async () => {
      const after = await lookups(this.baseUrl, this.cache);
      this.hits += after.hit - before.hit;
      this.misses += after.miss - before.miss;
    };
  }

  /** The hit rate so far, as a percentage ('-' before any lookup). */
  rate(): string {
    const total = this.hits + this.misses;
    return total > 0 ? `${((100 * this.hits) / total).toFixed(1)}%` : '-';
  }
}

/** A deterministic generator (mulberry32): the same draws on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `skillName`: a public skill the writer's ghost names and unnames in turn. */
export async function mixedEndpoint(
  baseUrl: string,
  label: string,
  tasks: TaskTarget[],
  teams: number,
  skillName: string,
): Promise<Endpoint> {
  const draw = random(13);
  // Each request is drawn as it is sent, so no sequence repeats whatever the run's length.
  const requests = [
    {
      method: 'GET',
      setupRequest: (request: autocannon.Request): autocannon.Request => {
        const t = tasks[Math.floor(draw() * tasks.length)];
        return { ...request, path: `/api/tasks/${t.taskId}/skills`, headers: { 'x-api-key': t.apiKey } };
      },
    },
  ];
  const created = await call(baseUrl, 'POST', '/api/ghosts', { name: `bench-writer-${label}`, skills: [] });
  const ghost = JSON.parse(created) as { id: number };
  const cache = new LookupCount(baseUrl);
  let writes = 0;
  let failures = 0;
  let failure = '';
  let step = 0;
  const write = async (): Promise<void> => {
    const n = step++;
    if (n % 2 === 0) {
      await call(baseUrl, 'PUT', `/api/ghosts/${ghost.id}`, {
        name: `bench-writer-${label}`,
        skills: n % 4 === 0 ? [skillName] : [],
      });
    } else {
      await call(baseUrl, 'POST', '/api/tasks', { team_id: ((n >> 1) % teams) + 1, title: `written during the bench` });
    }
  };
  const around = async (): Promise<() => Promise<void>> => {
    const counted = await cache.measure();
    let inFlight: Promise<void> | undefined;
    const timer = setInterval(() => {
      if (inFlight) return;
      inFlight = write().then(
        () => void writes++,
        (err: Error) => {
          failures++;
          failure ||= err.message;
        },
      );
      void inFlight.finally(() => (inFlight = undefined));
    }, 1000 / WRITES_PER_SECOND);
    return async () => {
      clearInterval(timer);
      await inFlight;
      await counted();
    };
  };
  return {
    label: `mixed: 1,000 tasks at random, ${WRITES_PER_SECOND} writes/s, ${label}`,
    baseUrl,
    requests,
    expect: 200,
    around,
    note: () =>
      `cache hit rate ${cache.rate()}, ${writes} writes${failures > 0 ? `, ${failures} FAILED (${failure})` : ''}`,
  };
}
