import { countingQueries } from '../support/app-queries';
import { Scenario } from '../support/scenario';
import { as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

// A new task elsewhere or another team's ghost leaves a cached resolution in place; a change to a
// ghost the task's team points at (deleted or not) drops it, and any other write drops everything.
describe('writes that cannot change a cached resolution do not drop it', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    await s.skill(alice, 'narrow-a');
    await s.skill(alice, 'narrow-b');
  });
  afterAll(async () => {
    await t.close();
  });

  /** The task's skills (every write heard first), and whether they took a statement (false: from the cache). */
  async function read(taskId: number): Promise<{ skills: string[]; queried: boolean }> {
    await t.heard();
    const { result: res, queries } = await countingQueries(() =>
      t.http.get(`/api/tasks/${taskId}/skills`).set(as(alice.key)),
    );
    expect(res.status).toBe(200);
    return { skills: res.body.skills, queried: queries > 0 };
  }

  it('keeps it across a new task and another ghost, drops it for its own ghost and for anything else', async () => {
    const mine = await s.teamWithGhost(alice, 'narrow-mine', ['narrow-a']);
    const other = await s.teamWithGhost(alice, 'narrow-other', ['narrow-a']);
    const task = await s.task(alice, { team_id: mine.team.id });
    expect((await read(task.id)).queried).toBe(true);
    expect(await read(task.id)).toEqual({ skills: ['narrow-a'], queried: false });

    await s.task(alice, { team_id: other.team.id });
    await s.put(alice, `/api/ghosts/${other.ghost.id}`, { name: 'narrow-other-ghost', skills: ['narrow-b'] });
    await s.ghost(alice, { name: 'narrow-loose', skills: ['narrow-b'] });
    expect(await read(task.id)).toEqual({ skills: ['narrow-a'], queried: false });

    await s.put(alice, `/api/ghosts/${mine.ghost.id}`, { name: 'narrow-mine-ghost', skills: ['narrow-b'] });
    expect(await read(task.id)).toEqual({ skills: ['narrow-b'], queried: true });
    expect((await read(task.id)).queried).toBe(false);

    // Anything else (here a bot of another team) still drops every entry.
    await s.bot(alice, 'narrow-extra-bot', other.ghost.id);
    expect((await read(task.id)).queried).toBe(true);
  });
});
