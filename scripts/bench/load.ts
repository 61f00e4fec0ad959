// Drives the endpoints with autocannon in alternating short rounds, so drift on a shared machine
// (other processes, GC, CPU frequency) lands on every endpoint alike, and keeps every latency to
// take exact percentiles over all rounds.
import autocannon from 'autocannon';

export interface Endpoint {
  label: string;
  baseUrl: string;
  /** Rotated per connection so concurrent connections do not ask for the same thing. */
  requests: autocannon.Request[];
  /** The status every answer should have. */
  expect: number;
  /** Awaited before each run, warm-up included, before any request is sent (the fresh tasks' creation). */
  prepare?: () => Promise<void>;
  /** Started before each measured run, stopped after it (the mixed row's writer and counters). */
  around?: () => Promise<() => Promise<void>>;
  /** Printed in the ratio column when the row has no ratio (the mixed row's hit rate). */
  note?: () => string;
}

export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  seconds: number;
  roundSeconds: number;
}

export interface Measurement {
  endpoint: Endpoint;
  responses: number;
  seconds: number;
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
}

async function run(endpoint: Endpoint, seconds: number, connections: number, into?: Measurement): Promise<void> {
  await endpoint.prepare?.();
  const list = endpoint.requests;
  const step = Math.max(1, Math.floor(list.length / connections));
  let clients = 0;
  const instance = autocannon({
    url: endpoint.baseUrl,
    connections,
    duration: seconds,
    requests: list,
    setupClient: (client) => {
      const offset = (clients++ * step) % list.length;
      client.setRequests([...list.slice(offset), ...list.slice(0, offset)]);
    },
  });
  const stop = into && endpoint.around ? await endpoint.around() : undefined;
  if (into) {
    instance.on('response', (_client, status, _bytes, ms) => {
      into.latencies.push(ms);
      into.statuses.set(status, (into.statuses.get(status) ?? 0) + 1);
    });
  }
  let result: autocannon.Result;
  try {
    result = await instance;
  } finally {
    await stop?.();
  }
  if (into) {
    into.seconds += result.duration;
    into.errors += result.errors;
  }
}

export async function measure(
  endpoints: Endpoint[],
  settings: LoadSettings,
  progress: (line: string) => void,
): Promise<Measurement[]> {
  progress(`warming up: ${settings.warmupSeconds} s per endpoint`);
  for (const endpoint of endpoints) await run(endpoint, settings.warmupSeconds, settings.connections);
  const results = endpoints.map((endpoint): Measurement => ({
    endpoint,
    responses: 0,
    seconds: 0,
    latencies: [],
    statuses: new Map(),
    errors: 0,
  }));
  const rounds = Math.max(1, Math.round(settings.seconds / settings.roundSeconds));
  const perRound = settings.seconds / rounds;
  for (let r = 0; r < rounds; r++) {
    progress(`round ${r + 1}/${rounds}: ${perRound} s per endpoint`);
    // Each round starts one endpoint later, so none always runs right after the same neighbour.
    for (let k = 0; k < results.length; k++) {
      const m = results[(r + k) % results.length];
      await run(m.endpoint, perRound, settings.connections, m);
    }
  }
  for (const m of results) m.responses = m.latencies.length;
  return results;
}

export function perSecond(m: Measurement): number {
  return m.seconds > 0 ? m.responses / m.seconds : 0;
}

export function percentile(m: Measurement, q: number): number {
  if (m.latencies.length === 0) return NaN;
  const sorted = Float64Array.from(m.latencies).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** True when every answer had the expected status and no connection failed. */
export function clean(m: Measurement): boolean {
  return m.errors === 0 && m.responses > 0 && m.statuses.get(m.endpoint.expect) === m.responses;
}
