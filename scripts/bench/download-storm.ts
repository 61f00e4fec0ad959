// The sandbox start storm (docs/benchmarks.md#package-storage): `sandboxes` sandboxes start at once,
// each reading its task's skills and then downloading them `parallel` at a time with its task token,
// as the sandbox client does. Counts the answers by status (503 DATABASE_UNAVAILABLE is what a
// download that waited past the pool's acquire limit answers), their latency, the pool's waiting
// requests (sampled from /api/metrics), and, when the database is reached through the counting
// proxy, the round trips and bytes the download phase asked of PostgreSQL.
import type { PgCounter } from './pg-counter';
import { cpuSeconds, Sandbox } from './packages';

export interface StormResult {
  downloads: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  seconds: number;
  /** The highest waiting count and connections in use the sampler saw. */
  poolWaitingMax: number;
  poolInUseMax: number;
  /** Per download, with the proxy: round trips (statements) and bytes from PostgreSQL. */
  roundTripsPerDownload?: number;
  bytesFromDbPerDownload?: number;
  /** Milliseconds a download held a database connection, summed over its round trips. */
  dbMsPerDownload?: number;
  /** Service CPU seconds per download over the download phase. */
  cpuMsPerDownload: number;
}

function percentile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
}

async function poolGauges(baseUrl: string, adminKey: string): Promise<{ waiting: number; inUse: number } | null> {
  try {
    const text = await (await fetch(`${baseUrl}/api/metrics`, { headers: { 'x-api-key': adminKey } })).text();
    const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return {
      waiting: value('skill_resolver_db_pool_waiting_requests'),
      inUse: value('skill_resolver_db_pool_connections_in_use'),
    };
  } catch {
    return null;
  }
}

export async function downloadStorm(options: {
  baseUrl: string;
  adminKey: string;
  pid: number;
  sandboxes: Sandbox[];
  parallel: number;
  counter?: PgCounter;
  /** Follow a 302 to the store (what the client does); the store's time is then in the latency. */
  follow?: boolean;
}): Promise<StormResult> {
  const { baseUrl, sandboxes, parallel } = options;
  // Every sandbox reads its task's skills first (and so warms the resolution the downloads check).
  await Promise.all(
    sandboxes.map(async (s) => {
      const res = await fetch(`${baseUrl}/api/tasks/${s.taskId}/skills`, {
        headers: { authorization: `Bearer ${s.token}` },
      });
      await res.arrayBuffer();
    }),
  );
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let sampling = true;
  let poolWaitingMax = 0;
  let poolInUseMax = 0;
  const sampler = (async () => {
    while (sampling) {
      const g = await poolGauges(baseUrl, options.adminKey);
      if (g) {
        poolWaitingMax = Math.max(poolWaitingMax, g.waiting);
        poolInUseMax = Math.max(poolInUseMax, g.inUse);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const before = options.counter?.counts();
  const cpuBefore = cpuSeconds(options.pid);
  const started = performance.now();
  await Promise.all(
    sandboxes.map(async (s) => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < s.skillIds.length) {
          const id = s.skillIds[next++];
          const t0 = performance.now();
          let status: string;
          try {
            const res = await fetch(`${baseUrl}/api/skills/${id}/download`, {
              headers: { authorization: `Bearer ${s.token}` },
              redirect: options.follow ? 'follow' : 'manual',
            });
            const body = await res.text();
            status = res.status === 503 ? `503 ${(JSON.parse(body) as { code: string }).code}` : String(res.status);
          } catch (err) {
            status = `error ${(err as Error).name}`;
          }
          latencies.push(performance.now() - t0);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, s.skillIds.length) }, worker));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(options.pid) - cpuBefore;
  const after = options.counter?.counts();
  sampling = false;
  await sampler;
  latencies.sort((a, b) => a - b);
  const downloads = latencies.length;
  return {
    downloads,
    statuses,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? NaN,
    seconds,
    poolWaitingMax,
    poolInUseMax,
    ...(before && after
      ? {
          roundTripsPerDownload: (after.roundTrips - before.roundTrips) / downloads,
          bytesFromDbPerDownload: (after.bytesFromServer - before.bytesFromServer) / downloads,
          dbMsPerDownload: (after.roundTripMs - before.roundTripMs) / downloads,
        }
      : {}),
    cpuMsPerDownload: (cpu * 1000) / downloads,
  };
}
