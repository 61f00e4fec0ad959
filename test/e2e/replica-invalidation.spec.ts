import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { ChangeGeneration } from '../../src/cache/change-generation';
import { AppLogger } from '../../src/common/logging/app-logger';
import { countingQueries } from '../support/app-queries';
import { isServerMode, withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { skillZip } from '../support/zip-builder';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

// Two replicas on one PostgreSQL server: a write through one (or by hand) reaches the other's
// caches through LISTEN/NOTIFY. Runs where there is a server (TEST_DATABASE_URL, as in CI).
const onServer = isServerMode() ? describe : describe.skip;

async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - started;
}

onServer('caches across replicas', () => {
  let a: TestApp;
  let b: NestExpressApplication;
  let httpB: ReturnType<typeof request>;
  let alice: TestUser;
  let s: Scenario;

  beforeAll(async () => {
    a = await startTestApp();
    b = await createApp(a.config, { databaseUrl: a.db.url, logger: new AppLogger('error'), listenForChanges: true });
    httpB = request(b.getHttpServer());
    s = new Scenario(a);
    alice = await createUser(a, 'alice');
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it("a new version published through one replica ends the other's 304s", async () => {
    const skill = await s.skill(alice, 'shared', 'default', 'one');
    const { team } = await s.teamWithGhost(alice, 'replicated', ['shared']);
    const task = await s.task(alice, { team_id: team.id });
    const first = await a.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key));
    const etag = first.headers.etag;
    expect(
      (await a.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)).set('If-None-Match', etag)).status,
    ).toBe(304);

    const published = await httpB
      .post(`/api/skills/${skill.id}/versions`)
      .set(as(alice.key))
      .attach('file', skillZip('shared', { description: 'two' }), 'p.zip');
    expect(published.status).toBe(201);
    const waited = await eventually(
      async () =>
        (await a.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)).set('If-None-Match', etag)).status === 200,
    );
    expect(waited).toBeLessThan(5_000);
  });

  it("a tag moved or a version yanked through one replica ends the other's 304s", async () => {
    const skill = await s.skill(alice, 'tagged-shared', 'default', 'one');
    await s.newVersion(alice, skill.id, 'tagged-shared', 'two');
    await s.put(alice, `/api/skills/${skill.id}/tags/stable`, { version: 1 });
    const { team } = await s.teamWithGhost(alice, 'tag-replicated', ['tagged-shared'], [], 'default', {
      'tagged-shared': { skill_id: skill.id, tag: 'stable' },
    });
    const task = await s.task(alice, { team_id: team.id });
    const fresh = async (etag: string) =>
      (await a.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)).set('If-None-Match', etag)).status === 200;
    for (const change of [
      () => httpB.put(`/api/skills/${skill.id}/tags/stable`).set(as(alice.key)).send({ version: 2 }),
      () => httpB.patch(`/api/skills/${skill.id}/versions/2`).set(as(alice.key)).send({ status: 'deprecated' }),
    ]) {
      await a.heard();
      const etag = (await a.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key))).headers.etag;
      expect(await fresh(etag)).toBe(false);
      expect((await change()).status).toBe(200);
      expect(await eventually(() => fresh(etag))).toBeLessThan(5_000);
    }
  });

  it("a ghost changed through one replica, or by hand, drops only the other's answers that read it", async () => {
    await s.skill(alice, 'ghostly-a');
    await s.skill(alice, 'ghostly-b');
    const mine = await s.teamWithGhost(alice, 'ghostly-mine', ['ghostly-a']);
    const other = await s.teamWithGhost(alice, 'ghostly-other', ['ghostly-a']);
    const task = await s.task(alice, { team_id: mine.team.id });
    const changesOnA = a.app.get(ChangeGeneration);
    /** A's answer, and whether it took a statement (false: from A's cache). */
    const readOnA = async (): Promise<{ skills: string[]; queried: boolean }> => {
      const { result: res, queries } = await countingQueries(() =>
        a.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)),
      );
      return { skills: res.body.skills, queried: queries > 0 };
    };
    // Filled once A has heard its own writes above (heard later, one would drop the entry).
    await a.heard();
    await readOnA();
    expect(await readOnA()).toEqual({ skills: ['ghostly-a'], queried: false });

    // Another team's ghost, through B: once A has heard it, A still answers from its cache.
    const seen = changesOnA.ghostChangesSeen();
    const put = httpB.put(`/api/ghosts/${other.ghost.id}`).set(as(alice.key));
    expect((await put.send({ name: 'ghostly-other-ghost', skills: ['ghostly-b'] })).status).toBe(200);
    await eventually(() => Promise.resolve(changesOnA.ghostChangesSeen() > seen));
    expect(await readOnA()).toEqual({ skills: ['ghostly-a'], queried: false });

    // This task's ghost, by hand: A answers the new resolution.
    await withClient(a.db.url, (c) =>
      c.query(`UPDATE ghosts SET skills = '["ghostly-b"]'::jsonb WHERE id = $1`, [mine.ghost.id]),
    );
    await eventually(async () => (await readOnA()).skills[0] === 'ghostly-b');
  });

  it("a binding written through one replica, or by hand, ends the other's 304s for the tasks it changes only", async () => {
    const dora = await createUser(a, 'dora');
    const pub = await s.skill(ADMIN_KEY, 'bound-everywhere', 'public');
    const group = await s.post(alice, '/api/groups', { name: 'bound' });
    await s.post(alice, '/api/groups', { name: 'bound/child' });
    const aliceTask = await s.task(alice, {
      team_id: (await s.teamWithGhost(alice, 'bound-a', [], [], 'bound/child')).team.id,
    });
    const doraTask = await s.task(dora, { team_id: (await s.teamWithGhost(dora, 'bound-d', [])).team.id });
    const changesOnA = a.app.get(ChangeGeneration);
    const etagOf = async (who: TestUser, taskId: number) =>
      (await a.http.get(`/api/tasks/${taskId}/skills`).set(as(who.key))).headers.etag;
    const statusOnA = async (who: TestUser, taskId: number, etag: string) =>
      (await a.http.get(`/api/tasks/${taskId}/skills`).set(as(who.key)).set('If-None-Match', etag)).status;
    await a.heard();
    const aliceEtag = await etagOf(alice, aliceTask.id);
    const doraEtag = await etagOf(dora, doraTask.id);
    expect(await statusOnA(alice, aliceTask.id, aliceEtag)).toBe(304);
    expect(await statusOnA(dora, doraTask.id, doraEtag)).toBe(304);

    // Dora's own binding, through B: her task's 304s end on A; Alice's answer stays cached on A.
    let seen = changesOnA.ghostChangesSeen();
    expect((await httpB.put(`/api/users/me/skill-bindings/${pub.id}`).set(as(dora.key)).send({})).status).toBe(201);
    await eventually(() => Promise.resolve(changesOnA.ghostChangesSeen() > seen));
    expect(await statusOnA(dora, doraTask.id, doraEtag)).toBe(200);
    const { result: cached, queries } = await countingQueries(() =>
      a.http.get(`/api/tasks/${aliceTask.id}/skills`).set(as(alice.key)).set('If-None-Match', aliceEtag),
    );
    expect({ status: cached.status, queries }).toEqual({ status: 304, queries: 0 });

    // The parent group's binding, through B: the child team's task changes on A.
    seen = changesOnA.ghostChangesSeen();
    expect(
      (await httpB.put(`/api/groups/${group.id}/skill-bindings/${pub.id}`).set(as(alice.key)).send({})).status,
    ).toBe(201);
    await eventually(() => Promise.resolve(changesOnA.ghostChangesSeen() > seen));
    expect(await statusOnA(alice, aliceTask.id, aliceEtag)).toBe(200);

    // By hand: removing Dora's binding in SQL reaches A too.
    const doraNow = await etagOf(dora, doraTask.id);
    expect(await statusOnA(dora, doraTask.id, doraNow)).toBe(304);
    await withClient(a.db.url, (c) => c.query(`DELETE FROM skill_bindings WHERE user_id = $1`, [dora.id]));
    await eventually(async () => (await statusOnA(dora, doraTask.id, doraNow)) === 200);
  });

  it('a key revoked through one replica, or by hand, is refused by the other', async () => {
    const bob = await createUser(a, 'bob');
    expect((await a.http.get('/api/users/me').set(as(bob.key))).status).toBe(200);
    const keys = await httpB.get(`/api/users/${bob.id}/api-keys`).set(as(bob.key));
    expect((await httpB.delete(`/api/users/${bob.id}/api-keys/${keys.body.items[0].id}`).set(as(bob.key))).status).toBe(
      204,
    );
    await eventually(async () => (await a.http.get('/api/users/me').set(as(bob.key))).status === 401);

    const carol = await createUser(a, 'carol');
    expect((await a.http.get('/api/users/me').set(as(carol.key))).status).toBe(200);
    await withClient(a.db.url, (c) => c.query('UPDATE api_keys SET revoked_at = now() WHERE user_id = $1', [carol.id]));
    await eventually(async () => (await a.http.get('/api/users/me').set(as(carol.key))).status === 401);
  });
});
