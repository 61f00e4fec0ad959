import { Client } from 'pg';
import { countingQueries } from '../support/app-queries';
import { Scenario } from '../support/scenario';
import { as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

// Counts SQL round trips at the driver: every query of the app goes through pg's Client#query.
describe('GET /api/tasks/{id}/skills costs a constant number of round trips', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    await s.group(alice, 'rt');
  });
  afterAll(async () => {
    await t.close();
  });

  async function taskWith(bots: number, namesPerGhost: number, tag: string): Promise<number> {
    const botIds: number[] = [];
    for (let b = 0; b < bots; b++) {
      const names = Array.from({ length: namesPerGhost }, (_, i) => `${tag}-${b}-${i}`);
      for (const [i, name] of names.entries()) await s.skill(alice, name, i % 2 ? 'rt' : 'default');
      const ghost = await s.ghost(alice, {
        name: `${tag}-g${b}`,
        namespace: 'rt',
        skills: names,
        preload_skills: names.slice(0, 3),
      });
      botIds.push((await s.bot(alice, `${tag}-b${b}`, ghost.id, 'rt')).id);
    }
    const team = await s.team(alice, `${tag}-team`, botIds, 'rt');
    const selection = [{ name: `${tag}-0-0`, namespace: 'default', is_public: false }];
    const task = await s.task(alice, {
      team_id: team.id,
      skill_selection: selection,
      labels: { additionalSkills: '[]' },
    });
    const sub = await s.post(alice, '/api/subscriptions', {
      name: `${tag}-sub`,
      namespace: 'rt',
      team_id: team.id,
      skill_refs: selection,
    });
    await s.post(alice, `/api/subscriptions/${sub.id}/executions`, {});
    return task.id;
  }

  async function roundTrips(taskId: number): Promise<{ count: number; names: number }> {
    const { result: res, queries } = await countingQueries(() =>
      t.http.get(`/api/tasks/${taskId}/skills`).set(as(alice.key)),
    );
    expect(res.status).toBe(200);
    return { count: queries, names: res.body.skills.length };
  }

  it('at most 4 (authentication included), the same for 1 bot with 20 names as for 3 bots with 100', async () => {
    const small = await roundTrips(await taskWith(1, 20, 'small'));
    const large = await roundTrips(await taskWith(3, 34, 'large'));
    expect(small.names).toBe(20);
    expect(large.names).toBeGreaterThanOrEqual(100);
    expect(small.count).toBeLessThanOrEqual(4);
    expect(large.count).toBe(small.count);
  });

  it('four requests at once for a task nobody resolved yet cost the statements of one', async () => {
    // The key is verified (and cached) before each count: what is counted is the resolution's.
    const verified = () => t.http.get('/api/ghosts').set(as(alice.key)).expect(200);
    const single = await taskWith(1, 5, 'alone');
    await verified();
    const alone = await roundTrips(single);
    const burst = await taskWith(1, 5, 'burst');
    await verified();
    const { result, queries } = await countingQueries(() =>
      Promise.all(Array.from({ length: 4 }, () => t.http.get(`/api/tasks/${burst}/skills`).set(as(alice.key)))),
    );
    expect(result.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(result.map((res) => res.text)).size).toBe(1);
    expect({ queries, names: result[0].body.skills.length }).toEqual({ queries: alone.count, names: alone.names });
  });
});

describe('a key presented by four requests at once after a change is verified once', () => {
  let t: TestApp;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    alice = await createUser(t, 'alice');
  });
  afterAll(async () => {
    await t.close();
  });

  it('one key lookup for the four, each answered as the key owner', async () => {
    expect((await t.http.get('/api/users/me').set(as(alice.key))).status).toBe(200);
    // A write empties the credential cache: the next requests verify the key again.
    await createUser(t, 'bob');
    await t.heard();
    const spy = jest.spyOn(Client.prototype, 'query');
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => t.http.get('/api/users/me').set(as(alice.key))),
      );
      expect(answers.map((res) => [res.status, res.body.id])).toEqual(Array(4).fill([200, alice.id]));
      const lookups = spy.mock.calls.filter(
        ([query]) => (query as { name?: string }).name === 'auth_active_api_key_owner',
      );
      expect(lookups).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('GET /api/skills/{id} is one statement, and one more for a group skill (the reader role)', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    await s.group(alice, 'one-row');
  });
  afterAll(async () => {
    await t.close();
  });

  async function read(id: number): Promise<{ queries: number; body: Record<string, unknown> }> {
    // Every write heard first (a change heard later would empty the credential cache between the
    // reads); the first read fills that cache; the second is what every later read costs.
    await t.heard();
    await t.http.get(`/api/skills/${id}`).set(as(alice.key));
    const { result: res, queries } = await countingQueries(() => t.http.get(`/api/skills/${id}`).set(as(alice.key)));
    expect(res.status).toBe(200);
    return { queries, body: res.body };
  }

  it.each([
    ['personal', 'default', 1],
    ['group', 'one-row', 2],
  ])('a %s skill with tags and two versions: %s, %i round trip(s)', async (_kind, namespace, expected) => {
    const skill = await s.skill(alice, `rt-${namespace}`, namespace);
    await s.newVersion(alice, skill.id, `rt-${namespace}`, 'second version');
    await s.put(alice, `/api/skills/${skill.id}/tags/stable`, { version: 1 });
    await s.put(alice, `/api/skills/${skill.id}/tags/beta`, { version: 2 });
    const { queries, body } = await read(skill.id);
    expect(queries).toBe(expected);
    expect(body.latest_version).toMatchObject({ version: 2, status: 'active' });
    expect(JSON.stringify(body.tags)).toBe('{"beta":2,"stable":1}');
  });
});
