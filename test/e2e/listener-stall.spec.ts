// The change listener through a stalled event loop, on a PostgreSQL server: while the loop is
// blocked nothing is heard, so caches serve nothing right after; but the connection is alive,
// and the heartbeat waiting in its socket is heard as soon as the loop is free. A late timer is
// not a dead connection: the listener keeps it (no reconnect) and caches come back by themselves.
import { ChangeGeneration } from '../../src/cache/change-generation';
import { LISTENER_APPLICATION_NAME } from '../../src/cache/change-listener';
import { databaseName, isServerMode } from '../support/database';
import { startTestApp, TestApp } from '../support/test-app';
import { Client } from 'pg';

const onServer = isServerMode() ? describe : describe.skip;

/** Blocks this thread (the app's event loop with it) for `ms`, as a long synchronous task would. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

onServer('the change listener through a stalled event loop', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function listenerPids(): Promise<number[]> {
    const client = new Client({ connectionString: t.db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = $2',
        [LISTENER_APPLICATION_NAME, databaseName(t.db.url)],
      );
      return rows.map((row) => row.pid);
    } finally {
      await client.end();
    }
  }

  it.each([3_000, 5_000])('keeps its connection through a stall of %i ms, and caches come back', async (ms) => {
    const changes = t.app.get(ChangeGeneration);
    await until(() => changes.hearing());
    const before = await listenerPids();
    expect(before).toHaveLength(1);
    const logged = t.logs.length;

    stall(ms);
    // Nothing has been heard for longer than a heartbeat may be old: caches serve nothing.
    expect(changes.hearing()).toBe(false);

    await until(() => changes.hearing());
    // Heard again on the same connection, and a marker sent now is heard on it too.
    await t.heard();
    expect(await listenerPids()).toEqual(before);
    const lines = t.logs.slice(logged).filter((line) => line.includes('change listener'));
    expect(lines).toEqual([]);
  });
});
