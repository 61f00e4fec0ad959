// A body the route cannot read is refused, not taken for "no body" (docs/api.md#media-types): every
// route that takes a body, found in the served OpenAPI document, answers 415 UNSUPPORTED_MEDIA_TYPE
// to a body of another media type or of none, and nothing is stored.
import { withClient } from '../support/database';
import { listen, rawRequest } from '../support/raw-http';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp } from '../support/test-app';

type Json = Record<string, any>;

/** A path template with every parameter filled by a value of the right form (ids need not exist). */
function filled(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'tag' ? 'stable' : '1'));
}

describe('media types of request bodies', () => {
  let t: TestApp;
  let port: number;
  let bodyRoutes: Array<{ method: string; path: string; reads: string }>;

  beforeAll(async () => {
    t = await startTestApp();
    port = await listen(t);
    const doc = (await t.http.get('/api/docs-json')).body as Json;
    bodyRoutes = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item)
        .filter(([, op]) => op.requestBody && path !== '/api/mcp')
        .map(([method, op]) => ({ method: method.toUpperCase(), path, reads: Object.keys(op.requestBody.content)[0] })),
    );
  });
  afterAll(() => t.close());

  /** Rows in every table of the schema: a refused request changes none of them. */
  const rowCounts = (): Promise<Record<string, number>> =>
    withClient(t.db.url, async (c) => {
      const tables = (
        await c.query<{ name: string }>(
          `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'migrations' ORDER BY 1`,
        )
      ).rows;
      const counts: Record<string, number> = {};
      for (const { name } of tables) {
        counts[name] = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`)).rows[0].n;
      }
      return counts;
    });

  it('the document names the routes that take a body: JSON ones and the three uploads', () => {
    expect(bodyRoutes.filter((r) => r.reads === 'multipart/form-data').map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/skills',
      'POST /api/skills/validate',
      'POST /api/skills/{id}/versions',
    ]);
    expect(bodyRoutes.filter((r) => r.reads === 'application/json').length).toBeGreaterThanOrEqual(19);
  });

  it.each<[string, Record<string, string>]>([
    ['text/plain (what fetch sends for a string)', { 'content-type': 'text/plain;charset=UTF-8' }],
    ['no Content-Type', {}],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['XML', { 'content-type': 'application/xml' }],
    ['JSON with a typo', { 'content-type': 'application/jsn' }],
  ])('a body sent as %s: 415 on every route that takes one, nothing stored', async (_, headers) => {
    const before = await rowCounts();
    for (const route of bodyRoutes) {
      const res = await rawRequest(port, {
        method: route.method,
        path: filled(route.path),
        headers: { ...as(ADMIN_KEY), ...headers },
        body: '{"name": "x", "preload": true}',
      });
      expect({ route: `${route.method} ${route.path}`, status: res.status, code: res.body?.code }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
      expect(res.body.message).toMatch(/application\/json/);
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('a multipart body on a JSON route is 415 too', async () => {
    const before = await rowCounts();
    const res = await t.http.post('/api/groups').set(as(ADMIN_KEY)).field('name', 'mt-multipart');
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await rowCounts()).toEqual(before);
  });

  it('PUT of a binding sent as text/plain keeps the binding as it was (it used to reset it to the defaults)', async () => {
    const s = new Scenario(t);
    const carol = await createUser(t, 'mt-carol');
    const skill = await s.skill(ADMIN_KEY, 'mt-pub', 'public');
    const path = `/api/users/me/skill-bindings/${skill.id}`;
    const exceptions = [{ type: 'mode', value: 'chat' }];
    expect((await t.http.put(path).set(as(carol.key)).send({ preload: true, exceptions })).status).toBe(201);
    const res = await rawRequest(port, {
      method: 'PUT',
      path,
      headers: { ...as(carol.key), 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({ preload: false }),
    });
    expect(res.status).toBe(415);
    expect((await t.http.get('/api/users/me/skill-bindings').set(as(carol.key))).body.items).toEqual([
      expect.objectContaining({ skill_id: skill.id, preload: true, exceptions }),
    ]);
  });

  it.each<[string, string]>([
    ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
    ['a +json type', 'application/vnd.skill-resolver+json'],
  ])('%s is read as JSON', async (_, type) => {
    const name = `mt-${type.length}`;
    const res = await rawRequest(port, {
      method: 'POST',
      path: '/api/groups',
      headers: { ...as(ADMIN_KEY), 'content-type': type },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe(name);
  });

  it('an empty body with no Content-Type is no body: the defaults of an optional body apply', async () => {
    const s = new Scenario(t);
    const team = (await s.teamWithGhost(ADMIN_KEY, 'mt-team', [], [], 'default')).team;
    const task = await s.task(ADMIN_KEY, { team_id: team.id });
    const res = await rawRequest(port, {
      method: 'POST',
      path: `/api/tasks/${task.id}/tokens`,
      headers: as(ADMIN_KEY),
    });
    expect(res.status).toBe(201);
  });

  it('MCP keeps its own answer to another media type (a JSON-RPC error, 415)', async () => {
    const res = await rawRequest(port, {
      method: 'POST',
      path: '/api/mcp',
      headers: { ...as(ADMIN_KEY), 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
  });
});
