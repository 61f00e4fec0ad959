// The worked examples of docs/skills-by-example.md, run against the real service: each scenario's
// answer, trimmed as the page trims it, must equal the JSON the page prints for it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

const PAGE = join(__dirname, '..', '..', 'docs', 'skills-by-example.md');

/** The JSON block the page prints between `<!-- example: name -->` and `<!-- /example -->`. */
function printed(name: string): unknown {
  const text = readFileSync(PAGE, 'utf8');
  const match = new RegExp(`<!-- example: ${name} -->\\n+\`\`\`json\\n([\\s\\S]*?)\`\`\`\\n+<!-- /example -->`).exec(
    text,
  );
  if (!match) throw new Error(`docs/skills-by-example.md has no example named ${name}`);
  return JSON.parse(match[1]);
}

/** The answer as the page shows it: names, where each ref points, what did not resolve. */
function trimmed(answer: any): unknown {
  const where = (ref: any) => ({ namespace: ref.namespace, is_public: ref.is_public, version: ref.version });
  return {
    skills: answer.skills,
    preload_skills: answer.preload_skills,
    skill_refs: Object.fromEntries(Object.entries(answer.skill_refs).map(([name, ref]) => [name, where(ref)])),
    unresolved: answer.unresolved,
  };
}

describe('docs/skills-by-example.md, run', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let team: any;
  const skills: Record<string, any> = {};

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    alice = await createUser(t, 'ex-alice');
    const bob = await createUser(t, 'ex-bob');
    await s.group(bob, 'acme', [[alice, 'Developer']]);
    skills.personalPdf = await s.skill(alice, 'pdf');
    skills.acmePdf = await s.skill(bob, 'pdf', 'acme');
    skills.publicPdf = await s.skill(ADMIN_KEY, 'pdf', 'public');
    skills.lint = await s.skill(bob, 'lint', 'acme');
    skills.report = await s.skill(bob, 'report', 'acme');
    await s.newVersion(bob, skills.report.id, 'report', 'report, second version');
    skills.notes = await s.skill(ADMIN_KEY, 'notes', 'public');
    skills.diary = await s.skill(alice, 'diary');
    team = (await s.teamWithGhost(alice, 'acme-desk', ['pdf', 'lint'], ['pdf'], 'acme')).team;
  });
  afterAll(() => t.close());
  afterEach(() => withClient(t.db.url, (c) => c.query('DELETE FROM skill_bindings')));

  it('1. your ghost names pdf: your own pdf wins', async () => {
    const task = await s.task(alice, { team_id: team.id });
    expect(trimmed(await s.skills(alice, task.id))).toEqual(printed('ghost'));
  });

  it("2. the task picks acme's pdf: the task wins over the ghost", async () => {
    const task = await s.task(alice, {
      team_id: team.id,
      skill_selection: [
        { name: 'pdf', namespace: 'acme', is_public: false },
        { name: 'notes', namespace: 'default', is_public: true },
      ],
    });
    expect(trimmed(await s.skills(alice, task.id))).toEqual(printed('task'));
  });

  it("3. a binding adds notes, but never Alice's private diary", async () => {
    await s.put(alice, `/api/users/me/skill-bindings/${skills.notes.id}`, { preload: true }, 201);
    await s.put(alice, `/api/users/me/skill-bindings/${skills.diary.id}`, {}, 201);
    await s.put(alice, `/api/users/me/skill-bindings/${skills.lint.id}`, {}, 201);
    const task = await s.task(alice, { team_id: team.id });
    expect(trimmed(await s.skills(alice, task.id))).toEqual(printed('binding'));
    // The page's last word: on a task of her personal team, diary is there.
    const own = (await s.teamWithGhost(alice, 'alice-desk', [], [], 'default')).team;
    const ownTask = await s.task(alice, { team_id: own.id });
    expect((await s.skills(alice, ownTask.id)).skills).toEqual(['diary', 'lint', 'notes']);
  });

  it('4. a scheduled job pins a version', async () => {
    const subscription = await s.post(alice, '/api/subscriptions', {
      name: 'weekly-report',
      namespace: 'acme',
      team_id: team.id,
      skill_refs: [{ name: 'report', namespace: 'acme', is_public: false, version: 1 }],
    });
    const run = await s.post(alice, `/api/subscriptions/${subscription.id}/executions`, {});
    const answer = await s.skills(alice, run.task_id);
    expect(trimmed(answer)).toEqual(printed('subscription'));
    expect(answer.skill_refs.report).toMatchObject({ pinned: true, version: 1 });
    // Revoked, the pinned version is not served: the name stays, unresolved.
    await t.http
      .patch(`/api/skills/${skills.report.id}/versions/1`)
      .set({ authorization: `Bearer ${ADMIN_KEY}` })
      .send({ status: 'revoked' })
      .expect(200);
    expect((await s.skills(alice, run.task_id)).unresolved).toEqual([
      { name: 'report', source: 'subscription', reason: 'REVOKED' },
    ]);
  });
});
