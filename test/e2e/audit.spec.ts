// The audit log (docs/operations.md#audit-log) through the real app: a scripted session of every kind of change,
// then the events it wrote, who may read them, and that a failed change or a secret leaves no trace.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { AppLogger } from '../../src/common/logging/app-logger';
import { loadConfig } from '../../src/config/app-config';
import { freshDatabase, withClient } from '../support/database';
import { sha256 } from '../support/skills';
import { ADMIN_KEY, as, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

interface Event {
  id: number;
  at: string;
  actor_user_id: number | null;
  action: string;
  target_type: string;
  target_id: number;
  namespace: string | null;
  details: Record<string, unknown>;
  request_id: string | null;
}

type Expected = Partial<Omit<Event, 'details'>> & { action: string; details?: unknown };

describe('the audit log', () => {
  let t: TestApp;
  let admin: TestUser;
  let alice: TestUser; // Owner of acme (and so of acme/lab)
  let bob: TestUser; // Maintainer in acme: no audit log for him
  let carol: TestUser; // a plain user
  let dave: TestUser; // Owner of other
  /** Every change of the session after boot, oldest first, as the log must show it. */
  const expected: Expected[] = [];
  /** Every key and token the session saw, to search the log and the logs for. */
  const secrets: string[] = [ADMIN_KEY];
  let requests = 0;
  const ids: Record<string, number> = {};

  /** Sends a request as `caller` with a fresh X-Request-Id, expects `status`, records `events` as expected. */
  async function change(
    caller: TestUser,
    status: number,
    build: (http: TestApp['http']) => request.Test,
    events: (body: any, requestId: string) => Expected[] = () => [],
  ): Promise<any> {
    const requestId = `audit-step-${++requests}`;
    const res = await build(t.http).set(as(caller.key)).set('X-Request-Id', requestId);
    expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
    for (const event of events(res.body, requestId)) {
      expected.push({ actor_user_id: caller.id, request_id: requestId, ...event });
    }
    return res.body;
  }

  async function countEvents(): Promise<number> {
    return withClient(t.db.url, async (c) =>
      Number((await c.query('SELECT count(*) FROM audit_events')).rows[0].count),
    );
  }

  /** A change that fails with `status`/`code` and writes no event. */
  async function refused(
    caller: TestUser,
    status: number,
    code: string,
    build: (http: TestApp['http']) => request.Test,
  ): Promise<void> {
    const before = await countEvents();
    const res = await build(t.http).set(as(caller.key));
    expectError(res, status, code);
    expect(await countEvents()).toBe(before);
  }

  async function createUser(name: string): Promise<TestUser> {
    const body = await change(
      admin,
      201,
      (http) => http.post('/api/users').send({ user_name: name }),
      (b) => [
        {
          action: 'user.create',
          target_type: 'user',
          target_id: b.id,
          namespace: null,
          details: { user_name: name, role: 'user' },
        },
        { action: 'api_key.create', target_type: 'api_key', namespace: null, details: { user_id: b.id } },
      ],
    );
    secrets.push(body.api_key);
    const keys = await t.http.get(`/api/users/${body.id}/api-keys`).set(as(ADMIN_KEY));
    expected[expected.length - 1].target_id = keys.body.items[0].id;
    return { id: body.id, key: body.api_key, name };
  }

  async function allEvents(caller: TestUser, query = ''): Promise<Event[]> {
    const res = await t.http.get(`/api/audit-events?limit=100${query}`).set(as(caller.key));
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    return res.body.items;
  }

  beforeAll(async () => {
    t = await startTestApp();
    const me = await t.http.get('/api/users/me').set(as(ADMIN_KEY));
    admin = { id: me.body.id, key: ADMIN_KEY, name: 'admin' };
    alice = await createUser('alice');
    bob = await createUser('bob');
    carol = await createUser('carol');
    dave = await createUser('dave');

    // A second key of alice's, minted and revoked by herself.
    const extra = await change(
      alice,
      201,
      (http) => http.post(`/api/users/${alice.id}/api-keys`),
      (b) => [{ action: 'api_key.create', target_type: 'api_key', target_id: b.id, details: { user_id: alice.id } }],
    );
    secrets.push(extra.api_key);
    await change(
      alice,
      204,
      (http) => http.delete(`/api/users/${alice.id}/api-keys/${extra.id}`),
      () => [{ action: 'api_key.revoke', target_type: 'api_key', target_id: extra.id, namespace: null }],
    );

    // Groups and members.
    const group = (owner: TestUser, name: string) =>
      change(
        owner,
        201,
        (http) => http.post('/api/groups').send({ name }),
        (b) => [
          {
            action: 'group.create',
            target_type: 'group',
            target_id: b.id,
            namespace: name,
            details: { name, parent_id: b.parent_id },
          },
          {
            action: 'group_member.create',
            target_type: 'group_member',
            target_id: owner.id,
            namespace: name,
            details: { group_id: b.id, user_id: owner.id, role: 'Owner' },
          },
        ],
      );
    ids.acme = (await group(alice, 'acme')).id;
    ids.lab = (await group(alice, 'acme/lab')).id;
    ids.other = (await group(dave, 'other')).id;
    const member = (user: TestUser, role: string, events: Expected[]) =>
      change(
        alice,
        200,
        (http) => http.put(`/api/groups/${ids.acme}/members/${user.id}`).send({ role }),
        () => events,
      );
    const memberEvent = (verb: string, user: TestUser, details: object): Expected => ({
      action: `group_member.${verb}`,
      target_type: 'group_member',
      target_id: user.id,
      namespace: 'acme',
      details: { group_id: ids.acme, user_id: user.id, ...details },
    });
    await member(bob, 'Developer', [memberEvent('create', bob, { role: 'Developer' })]);
    await member(bob, 'Maintainer', [memberEvent('update', bob, { role: 'Maintainer', previous_role: 'Developer' })]);
    await member(bob, 'Maintainer', []); // the same role again changes nothing
    await member(carol, 'Reporter', [memberEvent('create', carol, { role: 'Reporter' })]);
    await change(
      alice,
      204,
      (http) => http.delete(`/api/groups/${ids.acme}/members/${carol.id}`),
      () => [memberEvent('delete', carol, { previous_role: 'Reporter' })],
    );

    // A skill and its second version, in acme.
    const skill = await change(
      bob,
      201,
      (http) => http.post('/api/skills').field('namespace', 'acme').attach('file', skillZip('pdf'), 'pdf.zip'),
      (b) => [
        {
          action: 'skill.create',
          target_type: 'skill',
          target_id: b.id,
          namespace: 'acme',
          details: {
            name: 'pdf',
            is_public: false,
            version: 1,
            content_hash: b.latest_version.content_hash,
            revision: b.latest_version.revision,
          },
        },
      ],
    );
    ids.skill = skill.id;
    await change(
      bob,
      201,
      (http) =>
        http.post(`/api/skills/${skill.id}/versions`).attach('file', skillZip('pdf', { description: 'v2' }), 'pdf.zip'),
      (b) => [
        {
          action: 'skill_version.create',
          target_type: 'skill_version',
          target_id: skill.id,
          namespace: 'acme',
          details: expect.objectContaining({ name: 'pdf', version: 2, content_hash: b.latest_version.content_hash }),
        },
      ],
    );

    // Ghost, bot, team, subscription, tasks.
    const scoped = (type: string, verb: string, id: number, namespace: string, name: string): Expected => ({
      action: `${type}.${verb}`,
      target_type: type,
      target_id: id,
      namespace,
      details: { name },
    });
    const post = (
      caller: TestUser,
      resource: string,
      type: string,
      body: { name: string; namespace?: string; [field: string]: unknown },
    ) =>
      change(
        caller,
        201,
        (http) => http.post(`/api/${resource}`).send(body),
        (b) => [scoped(type, 'create', b.id, body.namespace ?? 'default', body.name)],
      );
    ids.ghost = (await post(bob, 'ghosts', 'ghost', { name: 'writer', namespace: 'acme', skills: ['pdf'] })).id;
    await change(
      bob,
      200,
      (http) => http.put(`/api/ghosts/${ids.ghost}`).send({ name: 'author', skills: ['pdf'] }),
      () => [scoped('ghost', 'update', ids.ghost, 'acme', 'author')],
    );
    ids.bot = (await post(bob, 'bots', 'bot', { name: 'b', namespace: 'acme', ghost_id: ids.ghost })).id;
    ids.team = (await post(bob, 'teams', 'team', { name: 't', namespace: 'acme', members: [{ bot_id: ids.bot }] })).id;
    const pdfRef = { name: 'pdf', namespace: 'acme', is_public: false };
    ids.subscription = (
      await post(bob, 'subscriptions', 'subscription', {
        name: 'nightly',
        namespace: 'acme',
        team_id: ids.team,
        skill_refs: [pdfRef],
      })
    ).id;
    ids.labGhost = (await post(bob, 'ghosts', 'ghost', { name: 'lab-ghost', namespace: 'acme/lab' })).id;
    ids.otherGhost = (await post(dave, 'ghosts', 'ghost', { name: 'elsewhere', namespace: 'other' })).id;
    ids.personalGhost = (await post(carol, 'ghosts', 'ghost', { name: 'mine' })).id;
    const task = await change(
      bob,
      201,
      (http) => http.post('/api/tasks').send({ team_id: ids.team, title: 'report', skill_selection: [pdfRef] }),
      (b) => [
        {
          action: 'task.create',
          target_type: 'task',
          target_id: b.id,
          namespace: 'acme',
          details: { team_id: ids.team, title: 'report' },
        },
      ],
    );
    ids.task = task.id;
    await change(
      bob,
      201,
      (http) => http.post(`/api/subscriptions/${ids.subscription}/executions`).send({}),
      (b) => [
        {
          action: 'task.create',
          target_type: 'task',
          target_id: b.task_id,
          namespace: 'acme',
          details: {
            team_id: ids.team,
            title: 'nightly',
            subscription_id: ids.subscription,
            execution_id: b.execution_id,
          },
        },
      ],
    );

    // A task token minted, used and revoked.
    const minted = await change(
      bob,
      201,
      (http) => http.post(`/api/tasks/${ids.task}/tokens`).send({ ttl_seconds: 600 }),
      (b) => [
        {
          action: 'task_token.create',
          target_type: 'task_token',
          target_id: ids.task,
          namespace: 'acme',
          details: { task_id: ids.task, token_id: expect.any(Number), expires_at: b.expires_at },
        },
      ],
    );
    secrets.push(minted.token);
    expect((await t.http.get(`/api/tasks/${ids.task}/skills`).set(as(minted.token))).status).toBe(200);
    ids.tokenIndex = expected.length - 1;
    await change(
      bob,
      204,
      (http) => http.delete(`/api/tasks/${ids.task}/tokens`),
      () => [
        {
          action: 'task_token.revoke',
          target_type: 'task_token',
          target_id: ids.task,
          namespace: 'acme',
          details: { task_id: ids.task, token_ids: [expect.any(Number)] },
        },
      ],
    );
    await change(
      bob,
      204,
      (http) => http.delete(`/api/tasks/${ids.task}/tokens`), // none left: nothing changes
    );

    // An ExecutionRequest persisted into the task's labels.
    await change(
      bob,
      200,
      (http) =>
        http.post(`/api/tasks/${ids.task}/execution-requests`).send({ additional_skills: [pdfRef], persist: true }),
      () => [
        {
          action: 'execution_request.persist',
          target_type: 'execution_request',
          target_id: ids.task,
          namespace: 'acme',
          details: { task_id: ids.task, requested_skill_refs: [pdfRef] },
        },
      ],
    );

    // Changes that fail write nothing.
    await refused(admin, 409, 'USER_EXISTS', (http) => http.post('/api/users').send({ user_name: 'alice' }));
    await refused(alice, 409, 'LAST_OWNER', (http) =>
      http.put(`/api/groups/${ids.acme}/members/${alice.id}`).send({ role: 'Maintainer' }),
    );
    await refused(bob, 409, 'NAME_TAKEN', (http) =>
      http.post('/api/ghosts').send({ name: 'author', namespace: 'acme' }),
    );
    await refused(bob, 400, 'VALIDATION_FAILED', (http) => http.post('/api/groups').send({ name: 'Not A Name' }));
    await refused(bob, 409, 'IN_USE', (http) => http.delete(`/api/ghosts/${ids.ghost}`));
    await refused(bob, 400, 'SKILL_INVALID', (http) =>
      http.post('/api/skills').attach('file', skillZip('bad', { frontmatter: 'name: bad' }), 'bad.zip'),
    );
    await refused(bob, 409, 'SKILL_REFERENCED', (http) => http.delete(`/api/skills/${ids.skill}`));

    // A forced delete names the referrers it broke.
    await change(
      bob,
      204,
      (http) => http.delete(`/api/skills/${ids.skill}?force=true`),
      () => [
        {
          action: 'skill.delete',
          target_type: 'skill',
          target_id: ids.skill,
          namespace: 'acme',
          details: {
            name: 'pdf',
            is_public: false,
            force: true,
            referrers: { ghosts: [ids.ghost], subscriptions: [ids.subscription], tasks: [ids.task] },
          },
        },
      ],
    );
    // Deletes of the rest, in the order the IN_USE rules allow.
    for (const [resource, type, id, name] of [
      ['subscriptions', 'subscription', ids.subscription, 'nightly'],
      ['teams', 'team', ids.team, 't'],
      ['bots', 'bot', ids.bot, 'b'],
      ['ghosts', 'ghost', ids.ghost, 'author'],
    ] as const) {
      await change(
        bob,
        204,
        (http) => http.delete(`/api/${resource}/${id}`),
        () => [scoped(type, 'delete', id, 'acme', name)],
      );
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('records one event per change, oldest boot events first, with actor, target, namespace and request id', async () => {
    const events = await allEvents(admin);
    const oldestFirst = [...events].reverse();
    expect(oldestFirst.slice(0, 2)).toEqual([
      expect.objectContaining({
        action: 'user.create',
        target_id: admin.id,
        actor_user_id: null,
        request_id: null,
        details: { user_name: 'admin', role: 'admin' },
      }),
      expect.objectContaining({ action: 'api_key.create', actor_user_id: null, request_id: null }),
    ]);
    const session = oldestFirst.slice(2);
    expect(session).toHaveLength(expected.length);
    expect(session).toEqual(
      expected.map((e) =>
        expect.objectContaining({
          ...e,
          target_type: e.action.split('.')[0],
          id: expect.any(Number),
          at: expect.any(String),
        }),
      ),
    );
    // Newest first by id; the token's revocation names the token its minting named.
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => b - a));
    const mint = session[ids.tokenIndex];
    const revoke = session.find((e) => e.action === 'task_token.revoke')!;
    expect(revoke.details.token_ids).toEqual([mint.details.token_id]);
  });

  it('pages with the cursor, newest first, and filters by each field', async () => {
    const all = await allEvents(admin);
    const paged: Event[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await t.http
        .get(`/api/audit-events?limit=7${cursor ? `&cursor=${cursor}` : ''}`)
        .set(as(ADMIN_KEY));
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(7);
      paged.push(...res.body.items);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    const defaultPage = await t.http.get('/api/audit-events').set(as(ADMIN_KEY));
    expect(defaultPage.body.items).toEqual(all.slice(0, 20));
    expect(defaultPage.body.next_cursor).toBe(String(all[19].id));

    const only = (pick: (e: Event) => boolean) => all.filter(pick);
    expect(await allEvents(admin, `&actor_user_id=${alice.id}`)).toEqual(only((e) => e.actor_user_id === alice.id));
    expect(await allEvents(admin, '&action=skill.delete')).toEqual(only((e) => e.action === 'skill.delete'));
    expect(await allEvents(admin, '&target_type=group_member')).toEqual(only((e) => e.target_type === 'group_member'));
    expect(await allEvents(admin, `&target_id=${ids.skill}&target_type=skill`)).toEqual(
      only((e) => e.target_type === 'skill' && e.target_id === ids.skill),
    );
    expect(await allEvents(admin, `&target_id=${ids.skill}`)).toEqual(only((e) => e.target_id === ids.skill));
    expect(await allEvents(admin, '&namespace=acme%2Flab')).toEqual(only((e) => e.namespace === 'acme/lab'));
    expect(await allEvents(admin, `&namespace=acme&actor_user_id=${bob.id}&target_type=ghost`)).toEqual(
      only((e) => e.namespace === 'acme' && e.actor_user_id === bob.id && e.target_type === 'ghost'),
    );
    expect(only((e) => e.action === 'skill.delete')).toHaveLength(1);
  });

  it("an Owner reads their group's events and its children's, nothing else", async () => {
    const all = await allEvents(admin);
    const mine = await allEvents(alice);
    expect(mine).toEqual(all.filter((e) => e.namespace === 'acme' || e.namespace === 'acme/lab'));
    expect(new Set(mine.map((e) => e.namespace))).toEqual(new Set(['acme', 'acme/lab']));
    expect(await allEvents(alice, '&namespace=acme%2Flab')).toEqual(all.filter((e) => e.namespace === 'acme/lab'));
    expect(await allEvents(dave)).toEqual(all.filter((e) => e.namespace === 'other'));
    for (const namespace of ['other', 'default', 'nowhere']) {
      expectError(await t.http.get(`/api/audit-events?namespace=${namespace}`).set(as(alice.key)), 403, 'FORBIDDEN');
    }
  });

  it('others are refused: 403 for users who own no group, 404 for a task token, 401 without credentials', async () => {
    expectError(await t.http.get('/api/audit-events').set(as(bob.key)), 403, 'FORBIDDEN');
    expectError(await t.http.get('/api/audit-events').set(as(carol.key)), 403, 'FORBIDDEN');
    const token = await t.http.post(`/api/tasks/${ids.task}/tokens`).set(as(alice.key)).send({});
    expect(token.status).toBe(201);
    secrets.push(token.body.token);
    expectError(await t.http.get('/api/audit-events').set(as(token.body.token)), 404, 'NOT_FOUND');
    expectError(await t.http.get('/api/audit-events'), 401, 'UNAUTHENTICATED');
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=ten',
    'cursor=abc',
    'cursor=0',
    'actor_user_id=0',
    'actor_user_id=x',
    'target_id=-1',
    'target_type=widget',
    'action=skill',
    'action=skill.explode',
    'action=widget.create',
    'action=a&action=b',
    'surprise=1',
  ])('a bad query (%s) is 400 VALIDATION_FAILED', async (query) => {
    expectError(await t.http.get(`/api/audit-events?${query}`).set(as(ADMIN_KEY)), 400, 'VALIDATION_FAILED');
  });

  it('holds no key, token or hash of one, and neither do the logs', async () => {
    const table = await withClient(t.db.url, async (c) =>
      JSON.stringify((await c.query('SELECT * FROM audit_events')).rows),
    );
    const served = JSON.stringify(await allEvents(admin));
    const logs = t.logs.join('\n');
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    for (const secret of secrets) {
      for (const needle of [secret, secret.slice(4), sha256(secret)]) {
        expect({
          needle,
          inTable: table.includes(needle),
          served: served.includes(needle),
          logs: logs.includes(needle),
        }).toEqual({
          needle,
          inTable: false,
          served: false,
          logs: false,
        });
      }
    }
  });

  it('an event is written in the transaction of its change: when it cannot be written, nothing changes', async () => {
    await withClient(t.db.url, async (c) => {
      await c.query(`CREATE FUNCTION audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'audit refused'; END $$`);
      await c.query(
        'CREATE TRIGGER audit_refuse BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_refuse()',
      );
    });
    const counts = () =>
      withClient(t.db.url, async (c) => {
        const out: Record<string, number> = {};
        for (const table of [
          'users',
          'api_keys',
          'groups',
          'group_members',
          'ghosts',
          'skills',
          'task_tokens',
          'tasks',
        ]) {
          out[table] = Number((await c.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
        }
        out.active_keys = Number(
          (await c.query('SELECT count(*) FROM api_keys WHERE revoked_at IS NULL')).rows[0].count,
        );
        return out;
      });
    try {
      const before = await counts();
      const attempts: Array<() => request.Test> = [
        () => t.http.post('/api/users').set(as(ADMIN_KEY)).send({ user_name: 'erin' }),
        () => t.http.post(`/api/users/${carol.id}/api-keys`).set(as(carol.key)),
        () => t.http.post('/api/groups').set(as(carol.key)).send({ name: 'carols' }),
        () => t.http.put(`/api/groups/${ids.acme}/members/${carol.id}`).set(as(alice.key)).send({ role: 'Reporter' }),
        () => t.http.post('/api/ghosts').set(as(carol.key)).send({ name: 'lost' }),
        () => t.http.delete(`/api/ghosts/${ids.personalGhost}`).set(as(carol.key)),
        () => t.http.post('/api/skills').set(as(carol.key)).attach('file', skillZip('lost'), 'lost.zip'),
        () => t.http.post(`/api/tasks/${ids.task}/tokens`).set(as(bob.key)).send({}),
      ];
      for (const attempt of attempts) expectError(await attempt(), 500, 'INTERNAL');
      expect(await counts()).toEqual(before);
      expect((await t.http.get(`/api/ghosts/${ids.personalGhost}`).set(as(carol.key))).status).toBe(200);
    } finally {
      await withClient(t.db.url, async (c) => {
        await c.query('DROP TRIGGER audit_refuse ON audit_events');
        await c.query('DROP FUNCTION audit_refuse()');
      });
    }
  });
});

describe('the audit log at boot', () => {
  it('installing the first admin is recorded without an actor; a boot that changes nothing records nothing', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-audit-'));
    const keyA = 'first-admin-key-aaaaaaaaaaaaaaaa';
    const keyB = 'second-admin-key-bbbbbbbbbbbbbbbb';
    const boot = async (key: string) => {
      const config = loadConfig({ DATA_DIR: dataDir, ADMIN_API_KEY: key });
      const app = await createApp(config, { databaseUrl: db.url, logger: new AppLogger('error') });
      await app.close();
    };
    const events = () =>
      withClient(db.url, async (c) => (await c.query('SELECT * FROM audit_events ORDER BY id')).rows);
    try {
      await boot(keyA);
      await boot(keyB);
      await boot(keyB);
      const rows = await events();
      expect(rows.map((r) => [r.action, r.actor_user_id, r.request_id, r.details])).toEqual([
        ['user.create', null, null, { user_name: 'admin', role: 'admin' }],
        ['api_key.create', null, null, { user_id: 1, bootstrap: true }],
        ['api_key.revoke', null, null, { user_id: 1 }],
        ['api_key.create', null, null, { user_id: 1, bootstrap: true }],
      ]);
      expect(rows[2].target_id).toBe(rows[1].target_id);
      const text = JSON.stringify(rows);
      for (const key of [keyA, keyB]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(sha256(key));
      }
    } finally {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
