import { ADMIN_KEY, as, expectError, startTestApp, TestApp } from '../support/test-app';

describe('the HTTP contract: errors, limits, logs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('health and docs need no credentials', async () => {
    expect((await t.http.get('/api/health/live')).body).toEqual({ status: 'ok' });
    expect((await t.http.get('/api/health/ready')).body).toEqual({ status: 'ok', database: 'up', store: 'up' });
    expect((await t.http.get('/api/docs')).status).toBe(200);
    expect((await t.http.get('/api/docs-json')).status).toBe(200);
  });

  it('an unknown route is the one 404 shape, with the request id sent back', async () => {
    const res = await t.http.get('/api/nothing-here').set(as(ADMIN_KEY)).set('X-Request-Id', 'trace-123');
    expect(expectError(res, 404, 'NOT_FOUND')).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Not found',
      code: 'NOT_FOUND',
      requestId: 'trace-123',
    });
  });

  it('an unsafe incoming request id is replaced', async () => {
    const res = await t.http.get('/api/health/live').set('X-Request-Id', 'bad id\twith spaces');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(['abc', '0', '-1', '1.5', '2147483648', '99999999999', '1e3'])('path id %s answers 404', async (id) => {
    expectError(await t.http.get(`/api/users/${id}/api-keys`).set(as(ADMIN_KEY)), 404, 'NOT_FOUND');
  });

  it('an unparseable body is 400 BAD_REQUEST; a parsed one breaking rules is VALIDATION_FAILED', async () => {
    const broken = await t.http
      .post('/api/users')
      .set(as(ADMIN_KEY))
      .set('content-type', 'application/json')
      .send('{"user_name":');
    expectError(broken, 400, 'BAD_REQUEST');
    const array = await t.http
      .post('/api/users')
      .set(as(ADMIN_KEY))
      .set('content-type', 'application/json')
      .send('[1,2]');
    expectError(array, 400, 'VALIDATION_FAILED');
    const unknown = await t.http.post('/api/groups').set(as(ADMIN_KEY)).send({ name: 'x', surprise: true });
    expect(expectError(unknown, 400, 'VALIDATION_FAILED').message).toEqual(['property surprise should not exist']);
  });

  it('bodies over 1 MiB answer 413 BODY_TOO_LARGE; nesting over 32 levels 400', async () => {
    const big = await t.http
      .post('/api/groups')
      .set(as(ADMIN_KEY))
      .send({ name: 'x'.repeat(1024 * 1024 + 10) });
    expectError(big, 413, 'BODY_TOO_LARGE');
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const nested = await t.http.post('/api/groups').set(as(ADMIN_KEY)).send({ name: 'deep', nested: deep });
    expect(expectError(nested, 400, 'VALIDATION_FAILED').message).toEqual([expect.stringContaining('32')]);
  });

  it('logs every request as JSON with its request id, and never the key', async () => {
    t.logs.length = 0;
    await t.http.get('/api/users/me').set(as(ADMIN_KEY)).set('X-Request-Id', 'log-check-1');
    await t.http.get('/api/users/me').set('X-API-Key', ADMIN_KEY);
    await t.http.get('/api/users/me').set('X-API-Key', 'srk_some-wrong-key-that-must-not-be-logged');
    const entries = t.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toContainEqual(
      expect.objectContaining({
        msg: 'request',
        request_id: 'log-check-1',
        method: 'GET',
        path: '/api/users/me',
        status: 200,
        user_id: expect.any(Number),
      }),
    );
    const text = t.logs.join('\n');
    expect(text).not.toContain(ADMIN_KEY);
    expect(text).not.toContain('srk_some-wrong-key');
  });
});
