import { ResolutionFactsRepository } from '../../src/selection-facts/resolution-facts.repository';
import { countingQueries } from '../support/app-queries';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

/** The task's answer and the statements it took (every write heard, the caller's key verified first). */
async function counted(
  t: TestApp,
  taskId: number,
  who: TestUser,
): Promise<{ status: number; body: any; queries: number }> {
  await t.heard();
  expect((await t.http.get('/api/users/me').set(as(who.key))).status).toBe(200);
  const { result: res, queries } = await countingQueries(() =>
    t.http.get(`/api/tasks/${taskId}/skills`).set(as(who.key)),
  );
  return { status: res.status, body: res.body, queries };
}

/** Any write the entries cannot survive: every cache is emptied. */
async function emptyingWrite(s: Scenario, owner: TestUser, tag: string): Promise<void> {
  const ghost = await s.ghost(owner, { name: `${tag}-spare` });
  await s.bot(owner, `${tag}-spare-bot`, ghost.id);
}

// A task nobody resolved yet, in a team whose ghosts' skills were loaded since the last change,
// loads only the skills its own selections name. Its answer is the one a full load gives.
describe("cold resolutions reuse what the team's ghosts reach, until a change", () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    // The resolution cache off: every read below resolves, as a task nobody resolved yet does. The
    // tasks created here are read as any task is (the last describe keeps them).
    t = await startTestApp({ RESOLUTION_CACHE_ENTRIES: '0', NEW_TASK_CACHE_ENTRIES: '0' });
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
    await s.group(alice, 'ts', [[bob, 'Developer']]);
  });
  afterAll(async () => {
    await t.close();
  });

  async function read(taskId: number, who: TestUser = alice): Promise<{ body: any; queries: number }> {
    const { status, body, queries } = await counted(t, taskId, who);
    expect(status).toBe(200);
    return { body, queries };
  }

  const unrelatedWrite = (tag: string): Promise<void> => emptyingWrite(s, alice, tag);

  it('a second task of the team takes one statement less, and answers what a full load answers', async () => {
    const pdf = await s.skill(alice, 'ts-pdf', 'ts');
    await s.skill(ADMIN_KEY, 'ts-csv', 'public');
    await s.newVersion(alice, pdf.id, 'ts-pdf', 'second');
    const gone = await s.skill(alice, 'ts-gone', 'ts');
    const { team } = await s.teamWithGhost(alice, 'ts-team', ['ts-pdf', 'ts-csv', 'ts-gone'], ['ts-pdf'], 'ts', {
      'ts-pdf': { skill_id: pdf.id, version: 1, pinned: true },
    });
    expect((await t.http.delete(`/api/skills/${gone.id}?force=true`).set(as(alice.key))).status).toBe(204);
    // Bob's own ts-csv decides that name for his task (the task's selection is above the ghosts).
    await s.skill(bob, 'ts-csv');
    const first = await s.task(alice, { team_id: team.id });
    const second = await s.task(alice, { team_id: team.id });
    const own = await s.task(bob, {
      team_id: team.id,
      skill_selection: [{ name: 'ts-csv', namespace: 'default', is_public: false }],
    });

    const a = await read(first.id);
    const b = await read(second.id);
    const c = await read(own.id, bob);
    expect(b.queries).toBe(a.queries - 1);
    expect(c.queries).toBe(a.queries);
    expect(b.body.skill_refs['ts-pdf'].version).toBe(1);
    expect(b.body.skill_refs['ts-pdf'].pinned).toBe(true);
    expect(c.body.skill_refs['ts-csv'].namespace).toBe('default');
    expect(c.body.skill_refs['ts-csv'].is_public).toBe(false);
    expect(c.body.unresolved).toEqual([{ name: 'ts-gone', source: 'ghost', reason: 'DELETED' }]);

    // After a write every entry is gone: the same tasks, loaded in full, answer the same bytes.
    await unrelatedWrite('ts-1');
    const bFull = await read(second.id);
    await unrelatedWrite('ts-2');
    const cFull = await read(own.id, bob);
    expect(bFull.queries).toBe(a.queries);
    expect(cFull.queries).toBe(a.queries);
    expect(bFull.body).toEqual(b.body);
    expect(cFull.body).toEqual(c.body);
  });

  it("drops the team's entry on a new version, on a change to its ghost, and on any other write", async () => {
    const doc = await s.skill(alice, 'ts-doc', 'ts');
    const { team, ghost } = await s.teamWithGhost(alice, 'ts-team2', ['ts-doc'], [], 'ts');
    const tasks = await Promise.all([1, 2, 3, 4].map(() => s.task(alice, { team_id: team.id })));
    const before = await read(tasks[0].id);
    expect(before.body.skill_refs['ts-doc'].version).toBe(1);

    await s.newVersion(alice, doc.id, 'ts-doc', 'newer');
    const afterVersion = await read(tasks[1].id);
    expect(afterVersion.queries).toBe(before.queries);
    expect(afterVersion.body.skill_refs['ts-doc'].version).toBe(2);

    await s.skill(alice, 'ts-new', 'ts');
    await s.put(alice, `/api/ghosts/${ghost.id}`, {
      name: 'ts-team2-ghost',
      namespace: 'ts',
      skills: ['ts-doc', 'ts-new'],
    });
    const afterGhost = await read(tasks[2].id);
    expect(afterGhost.body.skills).toEqual(['ts-doc', 'ts-new']);
    expect(afterGhost.queries).toBe(before.queries);

    // Filled again: the next task of the team needs one statement less.
    expect((await read(tasks[3].id)).queries).toBe(before.queries - 1);
  });

  it("follows a change to a ghost owner's memberships (the entry keeps the owners' identities)", async () => {
    const carol = await createUser(t, 'carol');
    const groupId = await s.group(alice, 'ts-own', [[carol, 'Developer']]);
    await s.skill(alice, 'ts-grp', 'ts-own');
    const { team } = await s.teamWithGhost(carol, 'ts-carol', ['ts-grp'], [], 'ts-own');
    const [first, second] = [await s.task(carol, { team_id: team.id }), await s.task(carol, { team_id: team.id })];
    expect((await read(first.id, carol)).body.skill_refs['ts-grp']).toBeDefined();
    // Carol leaves the group: she still reads the tasks she created, but her ghost no longer reads the group's skill.
    const left = await t.http.delete(`/api/groups/${groupId}/members/${carol.id}`).set(as(alice.key));
    expect(left.status).toBe(204);
    const after = await read(second.id, carol);
    expect(after.body.skill_refs['ts-grp']).toBeUndefined();
    expect(after.body.unresolved.map((u: { name: string }) => u.name)).toEqual(['ts-grp']);
    const full = await read(first.id, carol);
    expect({ ...after.body, task_id: 0, fingerprint: '' }).toEqual({ ...full.body, task_id: 0, fingerprint: '' });
  });

  it('another team keeps its own entry', async () => {
    await s.skill(alice, 'ts-x', 'ts');
    await s.skill(alice, 'ts-y', 'ts');
    const x = await s.teamWithGhost(alice, 'ts-team-x', ['ts-x'], [], 'ts');
    const y = await s.teamWithGhost(alice, 'ts-team-y', ['ts-y'], [], 'ts');
    const [x1, x2, y1] = [
      await s.task(alice, { team_id: x.team.id }),
      await s.task(alice, { team_id: x.team.id }),
      await s.task(alice, { team_id: y.team.id }),
    ];
    const full = await read(x1.id);
    expect((await read(y1.id)).body.skills).toEqual(['ts-y']);
    const again = await read(x2.id);
    expect(again.body.skills).toEqual(['ts-x']);
    expect(again.queries).toBe(full.queries - 1);
  });

  describe("a task's own selections, with the team's entry there: the answer a full load gives", () => {
    let team: { id: number };
    let warm: number;
    let fmt: { id: number };
    let notes: { id: number };
    let bound: { id: number };

    const sql = (text: string, params: unknown[] = []) => withClient(t.db.url, (c) => c.query(text, params));

    beforeAll(async () => {
      fmt = await s.skill(ADMIN_KEY, 'la-fmt', 'public');
      notes = await s.skill(alice, 'la-notes', 'ts');
      await s.newVersion(alice, notes.id, 'la-notes', 'second');
      await s.skill(alice, 'la-mine');
      bound = await s.skill(ADMIN_KEY, 'la-bound', 'public');
      ({ team } = await s.teamWithGhost(alice, 'la-team', ['la-fmt', 'la-notes'], ['la-fmt'], 'ts'));
      warm = (await s.task(alice, { team_id: team.id })).id;
    });

    const refs = (...names: Array<[string, string, boolean]>): string =>
      JSON.stringify(names.map(([name, namespace, is_public]) => ({ name, namespace, is_public })));

    /** A task of the team with `labels` stored as they are, and a subscription's refs when given. */
    async function taskWith(labels: unknown, subscriptionRefs?: unknown): Promise<number> {
      let taskId: number;
      if (subscriptionRefs) {
        const sub = await s.post(alice, '/api/subscriptions', {
          name: `la-${Date.now()}`,
          namespace: 'ts',
          team_id: team.id,
        });
        taskId = (await s.post(alice, `/api/subscriptions/${sub.id}/executions`, {})).task_id;
        const stored = typeof subscriptionRefs === 'string' ? subscriptionRefs : JSON.stringify(subscriptionRefs);
        await sql('UPDATE subscriptions SET skill_refs = $2::jsonb WHERE id = $1', [sub.id, stored]);
      } else {
        taskId = (await s.task(alice, { team_id: team.id })).id;
      }
      await sql('UPDATE tasks SET labels = $2::jsonb WHERE id = $1', [taskId, JSON.stringify(labels)]);
      return taskId;
    }

    it.each<[string, unknown, unknown, number]>([
      [
        'explicit refs of every scope',
        {
          requestedSkillRefs: refs(
            ['la-fmt', 'default', true],
            ['la-notes', 'ts', false],
            ['la-mine', 'default', false],
          ),
        },
        undefined,
        2,
      ],
      ['names (additionalSkills)', { additionalSkills: '["la-mine","la-notes"]' }, undefined, 2],
      [
        "a subscription pinning a version, and the task's refs",
        { requestedSkillRefs: refs(['la-mine', 'default', false]) },
        [{ name: 'la-notes', namespace: 'ts', is_public: false, version: 1 }],
        2,
      ],
      ['a name written with a JSON escape', { additionalSkills: '["la-\\u006dine"]' }, undefined, 2],
      [
        'a subscription version written as 1.0',
        {},
        '[{"name": "la-notes", "namespace": "ts", "is_public": false, "version": 1.0}]',
        2,
      ],
      ['labels that are not JSON', { additionalSkills: '[oops', requestedSkillRefs: '{' }, undefined, 1],
      ['labels that are not an object', ['additionalSkills'], undefined, 1],
    ])('%s: the answer a full load gives', async (_what, labels, subscriptionRefs, statements) => {
      const taskId = await taskWith(labels, subscriptionRefs);
      // Nothing kept from the cases before (on the embedded database the labels written by SQL
      // above are not heard, and the skill lookups kept would answer the task's own).
      await unrelatedWrite(`la-pre-${taskId}`);
      await read(warm);
      const ahead = await read(taskId);
      const known = await read(warm);
      // The task's statement, and the skill query where the task's own sources name anything.
      expect(ahead.queries - known.queries).toBe(statements - 1);
      await unrelatedWrite(`la-${taskId}`);
      const full = await read(taskId);
      expect(ahead.body).toEqual(full.body);
      expect(ahead.body.skill_refs['la-fmt'].skill_id).toBe(fmt.id);
    });

    it("the creator's bindings and the task's refs: one skill query for both, the answer a full load gives", async () => {
      const taskId = await taskWith({ requestedSkillRefs: refs(['la-mine', 'default', false]) });
      await unrelatedWrite(`la-pre-${taskId}`);
      await read(warm);
      // A task with nothing of its own to look up, the team's entry there: the task's statement alone.
      const known = await read(warm);
      await s.put(alice, `/api/users/me/skill-bindings/${bound.id}`, { preload: true }, 201);
      await read(warm);
      const ahead = await read(taskId);
      expect(ahead.queries).toBe(known.queries + 1);
      expect(ahead.body.preload_skill_refs['la-bound'].skill_id).toBe(bound.id);
      await unrelatedWrite('la-bound');
      expect((await read(taskId)).body).toEqual(ahead.body);
      expect((await t.http.delete(`/api/users/me/skill-bindings/${bound.id}`).set(as(alice.key))).status).toBe(204);
    });

    it("a second task naming what the first looked up needs the task's statement alone, and answers what a full load does", async () => {
      await unrelatedWrite('la-lookups');
      const labels = { requestedSkillRefs: refs(['la-fmt', 'default', true], ['la-mine', 'default', false]) };
      const first = await taskWith(labels);
      const second = await taskWith(labels);
      await read(warm);
      const known = await read(warm);
      expect((await read(first)).queries).toBe(known.queries + 1);
      const kept = await read(second);
      expect(kept.queries).toBe(known.queries);
      await unrelatedWrite('la-lookups-2');
      expect((await read(second)).body).toEqual(kept.body);
    });

    it('a skill published under a name a task looked up in vain is found by the next task', async () => {
      const labels = { requestedSkillRefs: refs(['la-later', 'ts', false]) };
      const before = await taskWith(labels);
      await read(warm);
      expect((await read(before)).body.unresolved).toEqual([{ name: 'la-later', source: 'task', reason: 'NOT_FOUND' }]);
      const later = await s.skill(alice, 'la-later', 'ts');
      const after = await taskWith(labels);
      await read(warm);
      expect((await read(after)).body.skill_refs['la-later'].skill_id).toBe(later.id);
    });
  });

  describe("a task creator's identity and own bindings, kept with the team's entry: the answer a full load gives", () => {
    let groupId: number;
    let team: { id: number };
    let mine: { id: number };
    let theirs: { id: number };

    beforeAll(async () => {
      const dave = await createUser(t, 'dave');
      groupId = await s.group(alice, 'cr', [
        [bob, 'Developer'],
        [dave, 'Developer'],
      ]);
      await s.skill(ADMIN_KEY, 'cr-ghost', 'public');
      await s.skill(alice, 'cr-group', 'cr');
      mine = await s.skill(ADMIN_KEY, 'cr-mine', 'public');
      theirs = await s.skill(alice, 'cr-theirs', 'cr');
      ({ team } = await s.teamWithGhost(alice, 'cr-team', ['cr-ghost'], [], 'cr'));
    });

    /** A fresh task of the team by `who`, naming the group's skill as an additional skill. */
    const fresh = async (who: TestUser): Promise<number> =>
      (await s.task(who, { team_id: team.id, labels: { additionalSkills: '["cr-group"]' } })).id;

    /** The fresh task's answer, then the same task's after a write that empties every entry. */
    async function aheadAndFull(who: TestUser): Promise<{ ahead: any; full: any }> {
      const ahead = (await read(await fresh(who), who)).body;
      await unrelatedWrite(`cr-${Date.now()}-${Math.random()}`);
      const full = (await read(ahead.task_id, who)).body;
      return { ahead, full };
    }

    it("the task's statement leaves out a known creator and a known team's lineage", async () => {
      await s.put(bob, `/api/users/me/skill-bindings/${mine.id}`, { preload: false }, 201);
      await s.put(alice, `/api/groups/${groupId}/skill-bindings/${theirs.id}`, { preload: false }, 201);
      const taskId = await fresh(bob);
      const repo = t.app.get(ResolutionFactsRepository);
      const all = (await repo.loadTaskFacts(taskId, [], { teams: [], users: [] }))!;
      expect(all.identities[bob.id]?.directRoles.cr).toBe('Developer');
      expect(all.bindings.map((b) => b.target.type).sort()).toEqual(['group', 'user']);
      const byTeam = (await repo.loadTaskFacts(taskId, [], { teams: [team.id], users: [] }))!;
      expect(byTeam.teamKnown).toBe(true);
      expect(byTeam.bindings.map((b) => b.target.type)).toEqual(['user']);
      const byBoth = (await repo.loadTaskFacts(taskId, [alice.id], { teams: [team.id], users: [bob.id] }))!;
      expect(byBoth.identities[bob.id]).toBeUndefined();
      expect(byBoth.identities[alice.id]?.directRoles.cr).toBe('Owner');
      expect(byBoth.bindings).toEqual([]);
      expect(byBoth.task).toEqual(all.task);
    });

    it('a second task of a creator, their bindings and their group roles as a full load has them', async () => {
      const first = await aheadAndFull(bob);
      expect(first.ahead.skill_refs['cr-mine'].skill_id).toBe(mine.id);
      expect(first.ahead.skill_refs['cr-theirs'].skill_id).toBe(theirs.id);
      expect(first.ahead.skill_refs['cr-group']).toBeDefined();
      // Bob's entry and the team's are there now: his next task reads neither.
      await read((await s.task(alice, { team_id: team.id })).id);
      const again = await aheadAndFull(bob);
      expect(again.ahead).toEqual(again.full);
      expect({ ...again.ahead, task_id: 0, fingerprint: '' }).toEqual({ ...first.ahead, task_id: 0, fingerprint: '' });
    });

    it("drops the creator's entry when their bindings change, the team's when the group's do", async () => {
      await read(await fresh(bob), bob);
      expect((await t.http.delete(`/api/users/me/skill-bindings/${mine.id}`).set(as(bob.key))).status).toBe(204);
      const unbound = await aheadAndFull(bob);
      expect(unbound.ahead.skill_refs['cr-mine']).toBeUndefined();
      expect(unbound.ahead).toEqual(unbound.full);

      await read(await fresh(bob), bob);
      const removed = await t.http.delete(`/api/groups/${groupId}/skill-bindings/${theirs.id}`).set(as(alice.key));
      expect(removed.status).toBe(204);
      const groupUnbound = await aheadAndFull(bob);
      expect(groupUnbound.ahead.skill_refs['cr-theirs']).toBeUndefined();
      expect(groupUnbound.ahead).toEqual(groupUnbound.full);
      await s.put(alice, `/api/groups/${groupId}/skill-bindings/${theirs.id}`, { preload: true }, 201);
      const rebound = await aheadAndFull(bob);
      expect(rebound.ahead.preload_skill_refs['cr-theirs'].skill_id).toBe(theirs.id);
      expect(rebound.ahead).toEqual(rebound.full);
    });

    it("follows a creator's group role: after they leave, their next task gets neither the group's skill nor its bindings", async () => {
      const later = await fresh(bob);
      await read(await fresh(bob), bob);
      expect((await t.http.delete(`/api/groups/${groupId}/members/${bob.id}`).set(as(alice.key))).status).toBe(204);
      const ahead = (await read(later, bob)).body;
      expect(ahead.skill_refs['cr-group']).toBeUndefined();
      expect(ahead.skill_refs['cr-theirs']).toBeUndefined();
      expect(ahead.unresolved).toEqual([{ name: 'cr-group', source: 'task', reason: 'NOT_FOUND' }]);
      await unrelatedWrite('cr-left');
      expect((await read(later, bob)).body).toEqual(ahead);
    });

    it("another reader's task: the reader's identity kept, the creator's read, both as a full load has them", async () => {
      const carolsTask = await fresh(alice);
      // Alice reads her own task first (her entry kept), then a task of Dave's on the same team.
      await read(await fresh(alice));
      const davesTask = (await s.task(alice, { team_id: team.id })).id;
      const ahead = (await read(davesTask)).body;
      await unrelatedWrite('cr-reader');
      expect((await read(davesTask)).body).toEqual(ahead);
      expect((await read(carolsTask)).body.skill_refs['cr-group']).toBeDefined();
    });
  });
});

// A task created through this replica is kept as the task statement would read it: its first
// resolution, with its team's, its creator's and its reader's entries kept, reads nothing.
describe('a task created here, its team and its people known: its first resolution reads nothing', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let carol: TestUser;
  let team: { id: number };
  let pub: { id: number };
  let carolsOwn: number;
  let ntGroup: number;

  beforeAll(async () => {
    t = await startTestApp({ RESOLUTION_CACHE_ENTRIES: '0' });
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    carol = await createUser(t, 'carol');
    ntGroup = await s.group(alice, 'nt');
    await s.skill(alice, 'nt-doc', 'nt');
    pub = await s.skill(ADMIN_KEY, 'nt-pub', 'public');
    ({ team } = await s.teamWithGhost(alice, 'nt-team', ['nt-doc'], ['nt-doc'], 'nt'));
    const own = await s.teamWithGhost(carol, 'nt-carol', [], [], 'default');
    carolsOwn = (await s.task(carol, { team_id: own.team.id })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const read = (taskId: number, who: TestUser = alice) => counted(t, taskId, who);
  const emptied = (tag: string): Promise<void> => emptyingWrite(s, alice, tag);

  const refs = JSON.stringify([{ name: 'nt-pub', namespace: 'default', is_public: true }]);

  it('reads nothing, and answers what a full load answers', async () => {
    await read((await s.task(alice, { team_id: team.id, labels: { requestedSkillRefs: refs } })).id);
    const fresh = await s.task(alice, { team_id: team.id, labels: { requestedSkillRefs: refs } });
    const ahead = await read(fresh.id);
    expect(ahead.status).toBe(200);
    expect(ahead.queries).toBe(0);
    expect(ahead.body.skill_refs['nt-pub'].skill_id).toBe(pub.id);
    expect(ahead.body.preload_skill_refs['nt-doc']).toBeDefined();
    await emptied('nt-1');
    const full = await read(fresh.id);
    expect(full.queries).toBeGreaterThan(0);
    expect(full.body).toEqual(ahead.body);
  });

  it("the creator's and the group's bindings, as a full load has them", async () => {
    const mine = await s.skill(ADMIN_KEY, 'nt-mine', 'public');
    const grouped = await s.skill(alice, 'nt-grouped', 'nt');
    await s.put(alice, `/api/users/me/skill-bindings/${mine.id}`, { preload: true }, 201);
    await s.put(alice, `/api/groups/${ntGroup}/skill-bindings/${grouped.id}`, { preload: false }, 201);
    await read((await s.task(alice, { team_id: team.id })).id);
    const fresh = await s.task(alice, { team_id: team.id });
    const ahead = await read(fresh.id);
    expect(ahead.queries).toBe(0);
    expect(ahead.body.preload_skill_refs['nt-mine'].skill_id).toBe(mine.id);
    expect(ahead.body.skill_refs['nt-grouped'].skill_id).toBe(grouped.id);
    await emptied('nt-b');
    expect((await read(fresh.id)).body).toEqual(ahead.body);
  });

  it('read with a task token minted for it: nothing read either, the answer its creator gets', async () => {
    await read((await s.task(alice, { team_id: team.id, labels: { requestedSkillRefs: refs } })).id);
    const fresh = await s.task(alice, { team_id: team.id, labels: { requestedSkillRefs: refs } });
    const { token } = await s.post(alice, `/api/tasks/${fresh.id}/tokens`, { ttl_seconds: 600 });
    const bearer = { authorization: `Bearer ${token}` };
    // The token verified first: its first request looks it up.
    expect((await t.http.get(`/api/tasks/${fresh.id}`).set(bearer)).status).toBe(200);
    await t.heard();
    const { result, queries } = await countingQueries(() => t.http.get(`/api/tasks/${fresh.id}/skills`).set(bearer));
    expect(result.status).toBe(200);
    expect(queries).toBe(0);
    await emptied('nt-token');
    expect(result.body).toEqual((await read(fresh.id)).body);
  });

  it("a reader who may not read it gets 404 without a read, as from the task's row", async () => {
    await read((await s.task(alice, { team_id: team.id })).id);
    // Carol's entry: a task of her own resolved.
    await read(carolsOwn, carol);
    const fresh = await s.task(alice, { team_id: team.id });
    const denied = await read(fresh.id, carol);
    expect(denied.status).toBe(404);
    expect(denied.queries).toBe(0);
    await emptied('nt-2');
    expect((await read(fresh.id, carol)).status).toBe(404);
  });

  it('a change after it was created: read from its row', async () => {
    await read((await s.task(alice, { team_id: team.id })).id);
    const fresh = await s.task(alice, { team_id: team.id });
    await withClient(t.db.url, (c) =>
      c.query('UPDATE tasks SET labels = $2::jsonb WHERE id = $1', [
        fresh.id,
        JSON.stringify({ requestedSkillRefs: refs }),
      ]),
    );
    // On the embedded database the write above is not heard: told, as the change listener would.
    t.changed();
    const after = await read(fresh.id);
    expect(after.queries).toBeGreaterThan(0);
    expect(after.body.skill_refs['nt-pub'].skill_id).toBe(pub.id);
  });

  it('labels past 4 KiB are not kept: read from its row', async () => {
    await read((await s.task(alice, { team_id: team.id })).id);
    const fresh = await s.task(alice, { team_id: team.id, labels: { note: 'x'.repeat(5000) } });
    const ahead = await read(fresh.id);
    expect(ahead.status).toBe(200);
    expect(ahead.queries).toBe(1);
  });
});
