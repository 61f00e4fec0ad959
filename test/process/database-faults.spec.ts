// Database faults (docs/operations.md#when-the-database-does-not-answer) against a PostgreSQL cluster this test starts itself: a server
// that is frozen (SIGSTOP: it keeps every socket open and answers nothing), a server that is
// stopped, and a change listener whose connection goes silent. The app runs in this process on
// short time limits, so the test stays fast; the defaults are checked separately.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Client, Pool } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.setup';
import { ChangeGeneration } from '../../src/cache/change-generation';
import { LISTENER_APPLICATION_NAME } from '../../src/cache/change-listener';
import { AppLogger } from '../../src/common/logging/app-logger';
import { loadConfig } from '../../src/config/app-config';
import { boundedPoolOptions } from '../../src/database/database-limits';
import { countingQueries } from '../support/app-queries';
import { isServerMode } from '../support/database';
import { clusterUnavailable, PgCluster, startPgCluster } from '../support/pg-cluster';
import { ADMIN_KEY, as, expectError } from '../support/test-app';

const missing = clusterUnavailable();
const skipReason = !isServerMode() ? 'runs in the server pass (TEST_DATABASE_URL)' : missing;
const suite = skipReason ? describe.skip : describe;

/**
 * Short limits keep the test fast; FAULT_DEFAULT_LIMITS=1 runs it on the defaults (5 s, 15 s, 5 s)
 * to measure them. The readiness bound is the contract's own 2 s either way.
 */
const DEFAULT_LIMITS = process.env.FAULT_DEFAULT_LIMITS === '1';
const LIMITS = DEFAULT_LIMITS
  ? { DB_CONNECT_TIMEOUT_MS: 5_000, DB_STATEMENT_TIMEOUT_MS: 15_000, DB_ACQUIRE_TIMEOUT_MS: 5_000 }
  : { DB_CONNECT_TIMEOUT_MS: 1_000, DB_STATEMENT_TIMEOUT_MS: 2_000, DB_ACQUIRE_TIMEOUT_MS: 1_000 };
if (DEFAULT_LIMITS) jest.setTimeout(180_000);
/** A request waits for a connection, then for one statement: it fails within both limits. */
const REQUEST_BUDGET_MS = LIMITS.DB_ACQUIRE_TIMEOUT_MS + LIMITS.DB_STATEMENT_TIMEOUT_MS + 500;
const READY_BUDGET_MS = 2_000;

/** Measurements for the record, printed when FAULT_TIMINGS is set. */
function note(what: string, ms: number): void {
  if (process.env.FAULT_TIMINGS) process.stderr.write(`[fault timing] ${what}: ${Math.round(ms)} ms\n`);
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function until(check: () => Promise<boolean>, ms: number, every = 50): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
  return performance.now() - started;
}

interface RunningApp {
  app: NestExpressApplication;
  http: ReturnType<typeof request>;
  logs: string[];
  close(): Promise<void>;
}

async function startApp(url: string, env: Record<string, string | number>): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-faults-'));
  const config = loadConfig({
    DATABASE_URL: url,
    ADMIN_API_KEY: ADMIN_KEY,
    DATA_DIR: dataDir,
    DB_POOL_SIZE: '4',
    ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
  });
  const logs: string[] = [];
  const logger = new AppLogger('info', 'json', (line) => logs.push(line));
  const app = await createApp(config, { databaseUrl: url, logger });
  return {
    app,
    http: request(app.getHttpServer()),
    logs,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function createUser(http: ReturnType<typeof request>, name: string): Promise<{ id: number; key: string }> {
  const res = await http.post('/api/users').set(as(ADMIN_KEY)).send({ user_name: name });
  expect(res.status).toBe(201);
  return { id: res.body.id, key: res.body.api_key };
}

interface PgPoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: Record<string, unknown>;
}

function poolOf(app: NestExpressApplication): PgPoolStats {
  return (app.get(DataSource).driver as unknown as { master: PgPoolStats }).master;
}

async function sql<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

suite(`database faults on a cluster of the test's own${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let cluster: PgCluster;

  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(() => cluster?.destroy());

  it('closes a connection whose query timed out instead of handing it to the next caller', async () => {
    const pool = new Pool({
      connectionString: cluster.url(),
      max: 1,
      ...boundedPoolOptions({ connectMs: 1_000, statementMs: 500, acquireMs: 1_000 }),
    });
    try {
      const [{ pid }] = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      process.kill(pid, 'SIGSTOP');
      try {
        // Left open, the connection would run the next caller's statements behind (or inside the
        // transaction of) the one that timed out.
        await expect(pool.query('SELECT 1')).rejects.toThrow('Query read timeout');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      const next = await pool.query<{ pid: number; two: number }>('SELECT pg_backend_pid() AS pid, 2 AS two');
      expect(next.rows[0].two).toBe(2);
      expect(next.rows[0].pid).not.toBe(pid);
    } finally {
      await pool.end();
    }
  });

  describe('the server frozen, then stopped', () => {
    let t: RunningApp;
    let alice: { id: number; key: string };

    beforeAll(async () => {
      await sql(cluster.url(), 'CREATE DATABASE frozen');
      t = await startApp(cluster.url('frozen'), LIMITS);
      alice = await createUser(t.http, 'alice');
    });
    afterAll(async () => {
      cluster.thaw();
      await t?.close();
    });

    async function expectUnavailable(res: request.Response): Promise<void> {
      expectError(res, 503, 'DATABASE_UNAVAILABLE');
    }

    it('answers 503 DATABASE_UNAVAILABLE within the limits while frozen, stores nothing, and recovers after SIGCONT', async () => {
      expect((await t.http.get('/api/health/ready')).status).toBe(200);
      // Open connections in the pool, so that requests meet the frozen server on them (the statement
      // limit), not only when opening new ones (the connect and acquire limits).
      const warm = await Promise.all([1, 2, 3, 4].map(() => t.http.get('/api/groups').set(as(alice.key))));
      expect(warm.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(poolOf(t.app).totalCount).toBeGreaterThan(1);

      cluster.freeze();
      try {
        // Readiness: 503 within 2 s, however many probes arrive, and they share one check.
        const probes = await Promise.all(
          Array.from({ length: 30 }, () => timed(() => Promise.resolve(t.http.get('/api/health/ready')))),
        );
        for (const probe of probes) {
          await expectUnavailable(probe.value);
          expect(probe.ms).toBeLessThan(READY_BUDGET_MS);
        }
        note('frozen: /health/ready 503 (slowest of 30 concurrent probes)', Math.max(...probes.map((p) => p.ms)));
        expect(poolOf(t.app).waitingCount).toBeLessThanOrEqual(1);

        const read = await timed(() => Promise.resolve(t.http.get('/api/groups').set(as(alice.key))));
        await expectUnavailable(read.value);
        expect(read.ms).toBeLessThan(REQUEST_BUDGET_MS);
        note('frozen: authenticated read 503', read.ms);

        const write = await timed(() =>
          Promise.resolve(t.http.post('/api/groups').set(as(alice.key)).send({ name: 'made-while-frozen' })),
        );
        await expectUnavailable(write.value);
        expect(write.ms).toBeLessThan(REQUEST_BUDGET_MS);
        note('frozen: write 503', write.ms);

        // More requests than connections: those that wait for one give up within the acquire limit.
        const burst = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            timed(() => Promise.resolve(t.http.get(`/api/groups?limit=${i + 1}`).set(as(alice.key)))),
          ),
        );
        for (const r of burst) {
          await expectUnavailable(r.value);
          expect(r.ms).toBeLessThan(REQUEST_BUDGET_MS);
        }
        note('frozen: slowest of 12 concurrent reads on a pool of 4', Math.max(...burst.map((r) => r.ms)));
        // A probe while requests still hold the pool is still answered in time.
        const late = await timed(() => Promise.resolve(t.http.get('/api/health/ready')));
        await expectUnavailable(late.value);
        expect(late.ms).toBeLessThan(READY_BUDGET_MS);
      } finally {
        cluster.thaw();
      }

      const recovered = await until(async () => (await t.http.get('/api/health/ready')).status === 200, 10_000, 20);
      note('frozen: ready again after SIGCONT', recovered);
      const groups = await t.http.get('/api/groups').set(as(alice.key));
      expect(groups.status).toBe(200);
      expect(groups.body.items.map((g: { name: string }) => g.name)).not.toContain('made-while-frozen');
      expect(await sql(cluster.url('frozen'), `SELECT 1 FROM groups WHERE name = 'made-while-frozen'`)).toHaveLength(0);
      const created = await t.http.post('/api/groups').set(as(alice.key)).send({ name: 'made-after' });
      expect(created.status).toBe(201);
      expect(t.logs.some((l) => l.includes('"code":"INTERNAL"') || l.includes('Internal server error'))).toBe(false);
    });

    it('answers 503 while the server is stopped, and recovers once it is back, without a restart', async () => {
      cluster.stop();
      try {
        const ready = await timed(() => Promise.resolve(t.http.get('/api/health/ready')));
        await expectUnavailable(ready.value);
        expect(ready.ms).toBeLessThan(READY_BUDGET_MS);
        note('stopped: /health/ready 503', ready.ms);

        // The cached credential may still be served for a moment; the read itself needs the database.
        const read = await timed(() => Promise.resolve(t.http.get('/api/groups').set(as(alice.key))));
        await expectUnavailable(read.value);
        expect(read.ms).toBeLessThan(REQUEST_BUDGET_MS);
        note('stopped: authenticated read 503', read.ms);

        const write = await timed(() =>
          Promise.resolve(t.http.post('/api/groups').set(as(alice.key)).send({ name: 'made-while-stopped' })),
        );
        await expectUnavailable(write.value);
        expect(write.ms).toBeLessThan(REQUEST_BUDGET_MS);
        note('stopped: write 503', write.ms);
      } finally {
        cluster.start();
      }
      const recovered = await until(async () => (await t.http.get('/api/health/ready')).status === 200, 10_000, 20);
      note('stopped: ready again after start', recovered);
      expect((await t.http.get('/api/groups').set(as(alice.key))).status).toBe(200);
      expect((await t.http.post('/api/groups').set(as(alice.key)).send({ name: 'made-later' })).status).toBe(201);
      expect(await sql(cluster.url('frozen'), `SELECT 1 FROM groups WHERE name = 'made-while-stopped'`)).toHaveLength(
        0,
      );
    });
  });

  describe('the change listener goes silent', () => {
    let t: RunningApp;

    beforeAll(async () => {
      await sql(cluster.url(), 'CREATE DATABASE listening');
      t = await startApp(cluster.url('listening'), {}); // the default limits
    });
    afterAll(async () => {
      await t?.close();
    });

    async function listenerPids(): Promise<number[]> {
      const rows = await sql<{ pid: number }>(
        cluster.url('listening'),
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [LISTENER_APPLICATION_NAME],
      );
      return rows.map((r) => r.pid);
    }

    it('runs the pool with the contract limits by default', async () => {
      const [row] = await t.app.get(DataSource).query<{ statement_timeout: string }[]>('SHOW statement_timeout');
      expect(row.statement_timeout).toBe('15s');
      expect(poolOf(t.app).options).toEqual(
        expect.objectContaining({ connectionTimeoutMillis: 5_000, query_timeout: 15_000, statement_timeout: 15_000 }),
      );
    });

    /** Whether GET /users/me as `key` is answered without a query of the pool: from the credential cache. */
    async function servedFromCache(key: string): Promise<boolean> {
      const { result: res, queries } = await countingQueries(() => t.http.get('/api/users/me').set(as(key)));
      expect(res.status).toBe(200);
      return queries === 0;
    }

    it('a key revoked behind the app while its listener is paused is refused within 2 s, and caches come back', async () => {
      const changes = t.app.get(ChangeGeneration);
      const bob = await createUser(t.http, 'bob');
      // Cached once the notifications of its own creation have been heard.
      await until(() => servedFromCache(bob.key), 5_000);

      const [paused, ...others] = await listenerPids();
      expect(others).toEqual([]);
      process.kill(paused, 'SIGSTOP');
      try {
        const stoppedAt = performance.now();
        // The revocation's notification is queued for the paused backend and never arrives.
        await sql(cluster.url('listening'), 'UPDATE api_keys SET revoked_at = now() WHERE user_id = $1', [bob.id]);
        const refused = await until(
          async () => (await t.http.get('/api/users/me').set(as(bob.key))).status === 401,
          5_000,
          20,
        );
        const sinceStop = performance.now() - stoppedAt;
        note('listener paused: caches stop serving (revoked key refused) after', sinceStop);
        note('listener paused: time from the revocation to the first 401', refused);
        expect(sinceStop).toBeLessThan(2_000 + 500);

        // The listener gives up on the silent connection and listens on a new one: caches serve again.
        await until(async () => changes.hearing(), 10_000, 20);
        note('listener paused: caches serve again (new listening connection) after', performance.now() - stoppedAt);
        // A new listening connection (the paused one is still there, unable to exit).
        expect((await listenerPids()).filter((pid) => pid !== paused)).toHaveLength(1);
        expect(t.logs.some((l) => l.includes('change listener lost its connection'))).toBe(true);
      } finally {
        process.kill(paused, 'SIGCONT');
      }
      // Still refused, and a credential is cached again.
      expect((await t.http.get('/api/users/me').set(as(bob.key))).status).toBe(401);
      const carol = await createUser(t.http, 'carol');
      await until(() => servedFromCache(carol.key), 5_000);
    });
  });
});
