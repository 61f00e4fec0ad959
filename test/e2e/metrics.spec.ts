// GET /api/metrics (docs/operations.md#metrics) through the real app: who may scrape, the families, route
// templates instead of raw paths, and counters that move with what they count.
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { AppLogger } from '../../src/common/logging/app-logger';
import { loadConfig } from '../../src/config/app-config';
import { Scenario } from '../support/scenario';
import { publish } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { buildZip, skillZip } from '../support/zip-builder';

const METRICS_TOKEN = 'prometheus-scrape-token-0123456789';

/** The value of one sample (`name{labels} value`), or undefined when the scrape does not have it. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('metrics', () => {
  let t: TestApp;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN });
    alice = await createUser(t, 'alice');
  });
  afterAll(async () => {
    await t.close();
  });

  async function scrape(key = ADMIN_KEY): Promise<string> {
    const res = await t.http.get('/api/metrics').set(as(key));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  }

  it('serves every family of the contract in the Prometheus text format', async () => {
    const text = await scrape();
    for (const family of [
      'skill_resolver_http_request_duration_seconds histogram',
      'skill_resolver_cache_lookups_total counter',
      'skill_resolver_db_pool_connections_in_use gauge',
      'skill_resolver_db_pool_waiting_requests gauge',
      'skill_resolver_db_pool_connections_max gauge',
      'skill_resolver_packages_rejected_total counter',
      'skill_resolver_auth_failures_total counter',
      'skill_resolver_rate_limited_requests_total counter',
      'process_resident_memory_bytes gauge',
    ]) {
      expect(text).toContain(`# TYPE ${family}`);
    }
    expect(sample(text, 'skill_resolver_db_pool_connections_max')).toBe(4);
    expect(sample(text, 'skill_resolver_rate_limited_requests_total', { reason: 'auth_failures' })).toBe(0);
  });

  it('labels requests with their route template, never the raw path, and unmatched routes as one value', async () => {
    for (const id of [123456, 654321]) {
      expectError(await t.http.get(`/api/skills/${id}`).set(as(alice.key)), 404, 'NOT_FOUND');
    }
    expectError(await t.http.get('/api/no-such-route-abc').set(as(alice.key)), 404, 'NOT_FOUND');
    expectError(await t.http.get('/api/no-such-route-xyz').set(as(alice.key)), 404, 'NOT_FOUND');
    await t.http.get('/api/users/me').set(as(alice.key));
    const text = await scrape();
    const count = 'skill_resolver_http_request_duration_seconds_count';
    expect(sample(text, count, { method: 'GET', route: '/api/skills/:id', status: '404' })).toBe(2);
    expect(sample(text, count, { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, count, { method: 'GET', route: '/api/users/me', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'skill_resolver_http_request_duration_seconds_bucket', {
        method: 'GET',
        route: '/api/skills/:id',
        status: '404',
        le: '+Inf',
      }),
    ).toBe(2);
    for (const raw of ['123456', '654321', 'no-such-route']) expect(text).not.toContain(raw);
  });

  it('counts rejected packages by problem code, once per package', async () => {
    const before = await scrape();
    const rejected = (text: string, code: string) =>
      sample(text, 'skill_resolver_packages_rejected_total', { code }) ?? 0;
    const noSkillMd = buildZip([{ path: 'x/README.md', data: 'no skill here' }]);
    expectError(await publish(t, alice, noSkillMd), 400, 'SKILL_INVALID');
    expectError(await publish(t, alice, noSkillMd), 400, 'SKILL_INVALID');
    const noDescription = skillZip('nodesc', { frontmatter: 'name: nodesc' });
    expectError(await publish(t, alice, noDescription), 400, 'SKILL_INVALID');
    // Validation stores nothing and rejects nothing.
    expect(
      (await t.http.post('/api/skills/validate').set(as(alice.key)).attach('file', noSkillMd, 'x.zip')).status,
    ).toBe(200);
    const after = await scrape();
    expect(rejected(after, 'SKILL_MD_MISSING') - rejected(before, 'SKILL_MD_MISSING')).toBe(2);
    expect(rejected(after, 'DESCRIPTION_MISSING') - rejected(before, 'DESCRIPTION_MISSING')).toBe(1);
  });

  it('counts authentication failures and resolution cache hits and misses', async () => {
    const before = await scrape();
    expectError(
      await t.http.get('/api/users/me').set(as('srk_wrong-key-000000000000000000000000')),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await t.http.get('/api/users/me'), 401, 'UNAUTHENTICATED');
    const s = new Scenario(t);
    const { team } = await s.teamWithGhost(alice, 'cached', []);
    const task = await s.task(alice, { team_id: team.id });
    const first = await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key));
    await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key));
    const notModified = await t.http
      .get(`/api/tasks/${task.id}/skills`)
      .set(as(alice.key))
      .set('If-None-Match', first.headers.etag);
    expect(notModified.status).toBe(304);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('skill_resolver_auth_failures_total', { reason: 'invalid' })).toBe(1);
    expect(delta('skill_resolver_auth_failures_total', { reason: 'missing' })).toBe(1);
    // Each read looks the cache up once. The second read may miss too on a server, when the
    // notification of the task's creation arrives after the first read filled the cache.
    const hits = delta('skill_resolver_cache_lookups_total', { cache: 'resolution', result: 'hit' });
    const misses = delta('skill_resolver_cache_lookups_total', { cache: 'resolution', result: 'miss' });
    expect(hits + misses).toBe(3);
    expect(hits).toBeGreaterThanOrEqual(1);
    expect(misses).toBeGreaterThanOrEqual(1);
  });

  it('METRICS_TOKEN or an admin key may scrape; anything else may not', async () => {
    expect(await scrape(METRICS_TOKEN)).toContain('skill_resolver_http_request_duration_seconds');
    expect((await t.http.get('/api/metrics').set('X-API-Key', METRICS_TOKEN)).status).toBe(200);
    const before = sample(await scrape(), 'skill_resolver_auth_failures_total', { reason: 'invalid' })!;
    expectError(await t.http.get('/api/metrics').set(as(`${METRICS_TOKEN}x`)), 401, 'UNAUTHENTICATED');
    expectError(await t.http.get('/api/metrics').set(as('wrong')), 401, 'UNAUTHENTICATED');
    expectError(await t.http.get('/api/metrics'), 401, 'UNAUTHENTICATED');
    expectError(await t.http.get('/api/metrics').set(as(alice.key)), 404, 'NOT_FOUND');
    const s = new Scenario(t);
    const { team } = await s.teamWithGhost(alice, 'tokened', []);
    const task = await s.task(alice, { team_id: team.id });
    const token = await s.post(alice, `/api/tasks/${task.id}/tokens`, {});
    expectError(await t.http.get('/api/metrics').set(as(token.token)), 404, 'NOT_FOUND');
    const after = sample(await scrape(), 'skill_resolver_auth_failures_total', { reason: 'invalid' })!;
    expect(after - before).toBe(2);
    expect(t.logs.join('\n')).not.toContain(METRICS_TOKEN);
  });

  it('keeps a registry per app: a second app in this process counts on its own, and without a token only admins scrape', async () => {
    // A second app on the same database, as a replica would be, without METRICS_TOKEN.
    const config = loadConfig({ ADMIN_API_KEY: ADMIN_KEY, DATA_DIR: t.config.dataDir, DB_POOL_SIZE: '2' });
    const other = await createApp(config, { databaseUrl: t.db.url, logger: new AppLogger('error') });
    try {
      const http = request(other.getHttpServer());
      const res = await http.get('/api/metrics').set(as(ADMIN_KEY));
      expect(res.status).toBe(200);
      expect(sample(res.text, 'skill_resolver_packages_rejected_total', { code: 'SKILL_MD_MISSING' })).toBeUndefined();
      expect(sample(res.text, 'skill_resolver_db_pool_connections_max')).toBe(2);
      expectError(await http.get('/api/metrics').set(as(METRICS_TOKEN)), 401, 'UNAUTHENTICATED');
    } finally {
      await other.close();
    }
    expect(sample(await scrape(), 'skill_resolver_packages_rejected_total', { code: 'SKILL_MD_MISSING' })).toBe(2);
  });
});
