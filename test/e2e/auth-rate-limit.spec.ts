// docs/operations.md#rate-limits: failed authentications per client address, 30 a minute by default. Past the limit
// every request with credentials from that address answers 429 RATE_LIMITED with Retry-After, a
// valid key too; other addresses, requests without credentials and public routes are unaffected.
// Addresses are real: any 127/8 source address reaches the app on Linux loopback.
import { withClient } from '../support/database';
import { listen, rawRequest, RawResponse } from '../support/raw-http';
import { createBotWithGhost, createTeam } from '../support/resources';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp } from '../support/test-app';

function call(port: number, from: string, headers: Record<string, string> = {}, path = '/api/users/me') {
  return rawRequest(port, { path, headers, localAddress: from });
}

function expectRateLimited(res: RawResponse, windowSeconds: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('the failed-authentication limit, defaults (30 a minute, no proxy trusted)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp();
    port = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('30 wrong keys answer 401; from the 31st request on, any credentials from that address answer 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await call(port, '127.0.0.2', as(`srk_wrong-${i}`))).status);
    expect(statuses).toEqual(Array(30).fill(401));
    // Request 31: the right key is refused like a wrong one, so the limit tells nothing about guesses.
    expectRateLimited(await call(port, '127.0.0.2', as(ADMIN_KEY)), 60);
    expectRateLimited(await call(port, '127.0.0.2', { 'x-api-key': 'srk_wrong-again' }), 60);
    // Requests without credentials are not throttled, nor counted: public routes answer, others 401.
    expect((await call(port, '127.0.0.2', {}, '/api/health/live')).status).toBe(200);
    expect((await call(port, '127.0.0.2', {}, '/api/docs-json')).status).toBe(200);
    expect((await call(port, '127.0.0.2', {})).body.code).toBe('UNAUTHENTICATED');
    // Another address is unaffected.
    expect((await call(port, '127.0.0.3', as(ADMIN_KEY))).status).toBe(200);
    // X-Forwarded-For counts for nothing when no proxy is trusted.
    expectRateLimited(await call(port, '127.0.0.2', { ...as(ADMIN_KEY), 'x-forwarded-for': '198.51.100.9' }), 60);
  });

  it('wrong metrics tokens count too, and the metrics route is blocked like the rest', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await call(port, '127.0.0.9', as(`wrong-metrics-token-${i}`), '/api/metrics')).status).toBe(401);
    }
    expectRateLimited(await call(port, '127.0.0.9', as(ADMIN_KEY), '/api/metrics'), 60);
    expectRateLimited(await call(port, '127.0.0.9', as(ADMIN_KEY)), 60);
    expect((await call(port, '127.0.0.10', as(ADMIN_KEY), '/api/metrics')).status).toBe(200);
  });

  it('missing credentials never count toward the limit', async () => {
    for (let i = 0; i < 40; i++) expect((await call(port, '127.0.0.4', {})).status).toBe(401);
    expect((await call(port, '127.0.0.4', as(ADMIN_KEY))).status).toBe(200);
  });
});

describe('the failed-authentication limit, configured (2 per 2 s, one trusted proxy)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_FAILURE_LIMIT: '2', AUTH_FAILURE_WINDOW_SECONDS: '2', TRUST_PROXY: '1' });
    port = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const via = (client: string, headers: Record<string, string>) => ({ ...headers, 'x-forwarded-for': client });

  it('revoked keys and expired task tokens count as failures; the block ends with its window', async () => {
    const bob = await createUser(t, 'bob');
    // A revoked key.
    const key = await rawRequest(port, { method: 'POST', path: `/api/users/${bob.id}/api-keys`, headers: as(bob.key) });
    const revoke = `/api/users/${bob.id}/api-keys/${key.body.id}`;
    expect((await rawRequest(port, { method: 'DELETE', path: revoke, headers: as(bob.key) })).status).toBe(204);
    // An expired task token.
    const { botId } = await createBotWithGhost(t, bob, 'limits');
    const team = await createTeam(t, bob, { name: 'limits', members: [{ bot_id: botId }] });
    const task = await t.http.post('/api/tasks').set(as(bob.key)).send({ team_id: team.id });
    const token = await t.http.post(`/api/tasks/${task.body.id}/tokens`).set(as(bob.key)).send({});
    await withClient(t.db.url, (c) => c.query(`UPDATE task_tokens SET expires_at = now() - interval '1 hour'`));
    t.changed();

    expect((await call(port, '127.0.0.1', via('203.0.113.1', as(key.body.api_key)))).status).toBe(401);
    const expired = await call(
      port,
      '127.0.0.1',
      via('203.0.113.1', as(token.body.token)),
      `/api/tasks/${task.body.id}`,
    );
    expect(expired.status).toBe(401);
    expectRateLimited(await call(port, '127.0.0.1', via('203.0.113.1', as(bob.key))), 2);
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await call(port, '127.0.0.1', via('203.0.113.1', as(bob.key)))).status).toBe(200);
  });

  it('with TRUST_PROXY=1 the address is the one the proxy appended to X-Forwarded-For', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await call(port, '127.0.0.1', via('198.51.100.7', as('srk_wrong')))).status).toBe(401);
    }
    expectRateLimited(await call(port, '127.0.0.1', via('198.51.100.7', as(ADMIN_KEY))), 2);
    // A client cannot escape by prepending its own entries: the last hop decides.
    expectRateLimited(await call(port, '127.0.0.1', via('192.0.2.50, 198.51.100.7', as(ADMIN_KEY))), 2);
    // Another client behind the same proxy is unaffected.
    expect((await call(port, '127.0.0.1', via('198.51.100.8', as(ADMIN_KEY)))).status).toBe(200);
  });
});

describe('AUTH_FAILURE_LIMIT=0 turns the limit off', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_FAILURE_LIMIT: '0' });
    port = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('100 wrong keys all answer 401, and the right one 200', async () => {
    for (let i = 0; i < 100; i++) expect((await call(port, '127.0.0.5', as(`srk_wrong-${i}`))).status).toBe(401);
    expect((await call(port, '127.0.0.5', as(ADMIN_KEY))).status).toBe(200);
  });
});
