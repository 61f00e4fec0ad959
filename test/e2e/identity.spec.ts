import { ApiKeyUsageRecorder } from '../../src/auth/api-key-usage.recorder';
import { withClient } from '../support/database';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp } from '../support/test-app';

describe('identity: users and API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const countUsers = (): Promise<number> =>
    withClient(t.db.url, async (c) => Number((await c.query('SELECT count(*) FROM users')).rows[0].count));

  it('the bootstrap admin key authenticates with either header', async () => {
    const bearer = await t.http.get('/api/users/me').set('Authorization', `Bearer ${ADMIN_KEY}`);
    expect(bearer.status).toBe(200);
    expect(bearer.body).toEqual({ id: expect.any(Number), user_name: 'admin', role: 'admin' });
    const header = await t.http.get('/api/users/me').set('X-API-Key', ADMIN_KEY);
    expect(header.body).toEqual(bearer.body);
  });

  it('a user is created with a key shown once, listed by prefix, and its use is recorded', async () => {
    const alice = await createUser(t, 'alice');
    expect(alice.key).toMatch(/^srk_[A-Za-z0-9_-]{43}$/);
    const me = await t.http.get('/api/users/me').set(as(alice.key));
    expect(me.body).toEqual({ id: alice.id, user_name: 'alice', role: 'user' });
    await t.app.get(ApiKeyUsageRecorder).flush();
    const keys = await t.http.get(`/api/users/${alice.id}/api-keys`).set(as(alice.key));
    expect(keys.status).toBe(200);
    expect(keys.body.items).toEqual([
      {
        id: expect.any(Number),
        prefix: alice.key.slice(0, 12),
        created_at: expect.any(String),
        last_used_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(keys.body)).not.toContain(alice.key);
    const stored = await withClient(t.db.url, (c) =>
      c.query('SELECT key_hash FROM api_keys WHERE user_id = $1', [alice.id]),
    );
    expect(stored.rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a second key works alongside the first; a revoked key answers 401 and leaves the list', async () => {
    const bob = await createUser(t, 'bob');
    const created = await t.http.post(`/api/users/${bob.id}/api-keys`).set(as(bob.key));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), api_key: expect.stringMatching(/^srk_/) });
    expect((await t.http.get('/api/users/me').set('X-API-Key', created.body.api_key)).status).toBe(200);

    expect((await t.http.delete(`/api/users/${bob.id}/api-keys/${created.body.id}`).set(as(bob.key))).status).toBe(204);
    expectError(await t.http.get('/api/users/me').set(as(created.body.api_key)), 401, 'UNAUTHENTICATED');
    const list = await t.http.get(`/api/users/${bob.id}/api-keys`).set(as(bob.key));
    expect(list.body.items.map((k: { id: number }) => k.id)).not.toContain(created.body.id);
    expectError(
      await t.http.delete(`/api/users/${bob.id}/api-keys/${created.body.id}`).set(as(bob.key)),
      404,
      'NOT_FOUND',
    );
  });

  it.each([
    ['no credentials', {}],
    ['a wrong key', { authorization: 'Bearer srk_wrong' }],
    ['a wrong X-API-Key', { 'x-api-key': 'nope' }],
    ['a malformed Authorization', { authorization: 'Basic abc' }],
    ['an absurdly long key', { 'x-api-key': 'k'.repeat(2000) }],
  ])('%s answers 401 UNAUTHENTICATED', async (_name, headers) => {
    expectError(await t.http.get('/api/users/me').set(headers), 401, 'UNAUTHENTICATED');
  });

  it("another user's keys are 404, for listing, creating and revoking; admins may manage them", async () => {
    const carol = await createUser(t, 'carol');
    const dave = await createUser(t, 'dave');
    const missing = await t.http.get('/api/users/999999/api-keys').set(as(carol.key));
    const foreign = await t.http.get(`/api/users/${dave.id}/api-keys`).set(as(carol.key));
    expectError(foreign, 404, 'NOT_FOUND');
    expect({ ...foreign.body, requestId: '' }).toEqual({ ...missing.body, requestId: '' });
    expectError(await t.http.post(`/api/users/${dave.id}/api-keys`).set(as(carol.key)), 404, 'NOT_FOUND');
    const daveKeys = await t.http.get(`/api/users/${dave.id}/api-keys`).set(as(ADMIN_KEY));
    expectError(
      await t.http.delete(`/api/users/${dave.id}/api-keys/${daveKeys.body.items[0].id}`).set(as(carol.key)),
      404,
      'NOT_FOUND',
    );
    expect(daveKeys.status).toBe(200);
    expect((await t.http.post(`/api/users/${dave.id}/api-keys`).set(as(ADMIN_KEY))).status).toBe(201);
  });

  it('only admins create users; duplicates and bad names store nothing', async () => {
    const erin = await createUser(t, 'erin');
    const before = await countUsers();
    expectError(await t.http.post('/api/users').set(as(erin.key)).send({ user_name: 'frank' }), 403, 'FORBIDDEN');
    expectError(await t.http.post('/api/users').set(as(ADMIN_KEY)).send({ user_name: 'erin' }), 409, 'USER_EXISTS');
    const bad = expectError(
      await t.http.post('/api/users').set(as(ADMIN_KEY)).send({ user_name: '-Bad', role: 'root', extra: 1 }),
      400,
      'VALIDATION_FAILED',
    );
    expect(bad.message).toEqual(
      expect.arrayContaining([
        'property extra should not exist',
        'user_name must match [a-z0-9][a-z0-9._-]{0,63}',
        expect.stringContaining('role must be one of'),
      ]),
    );
    expect(await countUsers()).toBe(before);
  });

  it('an admin may create another admin', async () => {
    const res = await t.http.post('/api/users').set(as(ADMIN_KEY)).send({ user_name: 'root2', role: 'admin' });
    expect(res.status).toBe(201);
    const me = await t.http.get('/api/users/me').set(as(res.body.api_key));
    expect(me.body.role).toBe('admin');
  });
});
