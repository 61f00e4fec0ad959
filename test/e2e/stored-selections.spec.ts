// docs/resolution.md#stored-selections: stored data can never make a read fail. Rows written before today's checks (or by
// hand) with malformed selections still answer: a selection that cannot be resolved is
// `unresolved` (NOT_FOUND), never a 500 from the resolver or the database.
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

describe('stored selections that no longer pass the write checks (docs/resolution.md#stored-selections)', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let fmt: { id: number };
  let teamId: number;
  let ghostId: number;

  const sql = (text: string, params: unknown[] = []) => withClient(t.db.url, (c) => c.query(text, params));

  /** A task of Alice's team whose labels are then overwritten in the database. */
  async function taskWithStoredLabels(labels: unknown): Promise<number> {
    const task = await s.task(alice, { team_id: teamId });
    await sql('UPDATE tasks SET labels = $2::jsonb WHERE id = $1', [task.id, JSON.stringify(labels)]);
    t.changed();
    return task.id;
  }

  /** Every read of the task answers: its skills, an ExecutionRequest (with persist), a token and the token's reads. */
  async function readsOf(taskId: number): Promise<{ skills: any; execution: any }> {
    const skills = await s.get(alice, `/api/tasks/${taskId}/skills`, 200);
    const execution = await s.post(alice, `/api/tasks/${taskId}/execution-requests`, {}, 200);
    const token = await s.post(alice, `/api/tasks/${taskId}/tokens`, {}, 201);
    await s.get(token.token, `/api/tasks/${taskId}/skills`, 200);
    await s.get(token.token, `/api/v1/kinds/skills?name=fmt`, 200);
    const persisted = await s.post(
      alice,
      `/api/tasks/${taskId}/execution-requests`,
      { additional_skills: [{ name: 'fmt', namespace: 'default', is_public: true }], persist: true },
      200,
    );
    expect(persisted.skill_refs.fmt).toEqual(expect.objectContaining({ skill_id: fmt.id }));
    return { skills, execution };
  }

  const unresolved = (body: { unresolved: Array<{ name: string; source: string; reason: string }> }) =>
    body.unresolved.map((u) => `${u.name}:${u.source}:${u.reason}`);

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    fmt = await s.skill(ADMIN_KEY, 'fmt', 'public');
    const { team, ghost } = await s.teamWithGhost(alice, 'crew', ['fmt']);
    teamId = team.id;
    ghostId = ghost.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('the review case: additionalSkills ["a\\u0000"], accepted before, now reads as NOT_FOUND', async () => {
    const taskId = await taskWithStoredLabels({ additionalSkills: '["a\\u0000"]' });
    const { skills, execution } = await readsOf(taskId);
    expect(unresolved(skills)).toEqual(['a\u0000:task:NOT_FOUND']);
    expect(unresolved(execution)).toEqual(['a\u0000:task:NOT_FOUND']);
    expect(skills.skill_refs.fmt.skill_id).toBe(fmt.id);
  });

  it.each([
    ['additionalSkills that is not JSON', { additionalSkills: '[oops' }, []],
    [
      'additionalSkills with entries that are not names',
      { additionalSkills: '["fmt", 7, "", null, "Not A Name", "x\\ud800", "' + 'y'.repeat(300) + '"]' },
      ['Not A Name:task:NOT_FOUND', 'x\ud800:task:NOT_FOUND', `${'y'.repeat(300)}:task:NOT_FOUND`],
    ],
    [
      'requestedSkillRefs of a bad shape',
      {
        requestedSkillRefs:
          '[{"name":"fmt","namespace":"default","is_public":true},{"name":"lint"},' +
          '{"name":"notes","namespace":"Team A","is_public":false},{"name":"pdf","namespace":"default","is_public":"yes"},' +
          '{"name":"a\\u0000","namespace":"d\\u0000","is_public":false},5,{"namespace":"default"}]',
      },
      ['a\u0000:task:NOT_FOUND', 'lint:task:NOT_FOUND', 'notes:task:NOT_FOUND', 'pdf:task:NOT_FOUND'],
    ],
    ['selection labels of the wrong JSON types', { requestedSkillRefs: 5, additionalSkills: { a: 1 } }, []],
    ['labels that are not an object at all', ['additionalSkills'], []],
  ])('%s: 200, 201, and NOT_FOUND for what names something', async (_title, labels, expected) => {
    const taskId = await taskWithStoredLabels(labels);
    const { skills } = await readsOf(taskId);
    expect(unresolved(skills)).toEqual(expected);
    // The team's ghost still resolves whatever the labels hold.
    expect(skills.skill_refs.fmt.skill_id).toBe(fmt.id);
  });

  it('a ghost, a team and a subscription whose stored selections were damaged still resolve', async () => {
    const { team, ghost } = await s.teamWithGhost(alice, 'damaged', ['fmt']);
    const subscription = await s.post(alice, '/api/subscriptions', { name: 'nightly', team_id: team.id });
    const execution = await s.post(alice, `/api/subscriptions/${subscription.id}/executions`, {});
    await sql(
      `UPDATE ghosts SET skills = '["fmt", 3, "B\\\\u0000"]'::jsonb, preload_skills = '"fmt"'::jsonb,
              skill_refs = '{"fmt": {"skill_id": "abc"}, "__proto__": {"skill_id": 99999999999}}'::jsonb,
              preload_skill_refs = '[1]'::jsonb
        WHERE id = $1`,
      [ghost.id],
    );
    await sql(
      `UPDATE teams SET members = jsonb_build_array('x', jsonb_build_object('bot_id', 'nine'),
              jsonb_build_object('bot_id', 99999999999), members->0) WHERE id = $1`,
      [team.id],
    );
    await sql(
      `UPDATE subscriptions SET skill_refs =
         '[{"name":"lint"}, 5, {"name":"fmt2","namespace":"default","is_public":true,"version":"x"}]'::jsonb
        WHERE id = $1`,
      [subscription.id],
    );
    t.changed();
    const { skills } = await readsOf(execution.task_id);
    expect(skills.skills).toEqual(['B\\u0000', 'fmt', 'fmt2', 'lint']);
    // A stored ref whose id is not a row id fails as a stored ref does: it is not replaced by a lookup.
    expect(unresolved(skills)).toEqual([
      'B\\u0000:ghost:NOT_FOUND',
      'fmt:ghost:NOT_FOUND',
      'fmt2:subscription:NOT_FOUND',
      'lint:subscription:NOT_FOUND',
    ]);
  });

  it('deleting a skill that damaged rows point at answers 409 with its referrers, not a database error', async () => {
    const referrer = await taskWithStoredLabels({
      requestedSkillRefs: JSON.stringify([{ name: 'fmt', namespace: 'default', is_public: true }]),
    });
    await sql(
      `UPDATE ghosts SET skill_refs = '{"fmt": {"skill_id": "abc"}, "x": 5}'::jsonb, preload_skill_refs = '[1]'::jsonb
        WHERE id = $1`,
      [ghostId],
    );
    await sql(`UPDATE subscriptions SET skill_refs = '{"name": "fmt"}'::jsonb`);
    const res = await t.http.delete(`/api/skills/${fmt.id}`).set(as(ADMIN_KEY));
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'SKILL_REFERENCED' });
    expect(res.body.details.tasks).toContain(referrer);
  });
});
