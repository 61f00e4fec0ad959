import { countingQueries } from '../support/app-queries';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

// A new task elsewhere, a new task token or another team's ghost leaves a cached resolution in place; a change to a
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
  async function read(taskId: number, who: TestUser = alice): Promise<{ skills: string[]; queried: boolean }> {
    await t.heard();
    const { result: res, queries } = await countingQueries(() =>
      t.http.get(`/api/tasks/${taskId}/skills`).set(as(who.key)),
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

    const elsewhere = await s.task(alice, { team_id: other.team.id });
    await s.post(alice, `/api/tasks/${elsewhere.id}/tokens`, { ttl_seconds: 600 });
    await s.post(alice, `/api/tasks/${task.id}/tokens`, { ttl_seconds: 600 });
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

  it("a binding write drops only the answers it can change: the user's tasks, the group's and its children's", async () => {
    const bob = await createUser(t, 'narrow-bob');
    await s.group(alice, 'nb');
    await s.group(alice, 'nb/c');
    await s.group(alice, 'nx');
    const nb = (await s.get(alice, '/api/groups')).items.find((g: { name: string }) => g.name === 'nb').id;
    const pub = await s.skill(ADMIN_KEY, 'narrow-pub', 'public');
    const task = async (who: TestUser, namespace: string, tag: string) =>
      s.task(who, { team_id: (await s.teamWithGhost(who, `narrow-${tag}`, [], [], namespace)).team.id });
    const tasks = {
      alicePersonal: { who: alice, task: await task(alice, 'default', 'ap') },
      aliceChild: { who: alice, task: await task(alice, 'nb/c', 'ac') },
      aliceOther: { who: alice, task: await task(alice, 'nx', 'ao') },
      bobPersonal: { who: bob, task: await task(bob, 'default', 'bp') },
    };
    /** Which tasks' answers took a statement (were not cached), and each one's skills. */
    const readAll = async () => {
      const out: Record<string, string> = {};
      for (const [name, { who, task: x }] of Object.entries(tasks)) {
        const r = await read(x.id, who);
        out[name] = `${r.queried ? 'queried' : 'cached'}:${r.skills.join(',')}`;
      }
      return out;
    };
    await readAll();
    expect(Object.values(await readAll()).every((v) => v.startsWith('cached'))).toBe(true);

    await s.put(bob, `/api/users/me/skill-bindings/${pub.id}`, {}, 201);
    expect(await readAll()).toEqual({
      alicePersonal: 'cached:',
      aliceChild: 'cached:',
      aliceOther: 'cached:',
      bobPersonal: 'queried:narrow-pub',
    });

    await s.put(alice, `/api/groups/${nb}/skill-bindings/${pub.id}`, { preload: true }, 201);
    expect(await readAll()).toEqual({
      alicePersonal: 'cached:',
      aliceChild: 'queried:narrow-pub',
      aliceOther: 'cached:',
      bobPersonal: 'cached:narrow-pub',
    });

    expect((await t.http.delete(`/api/users/me/skill-bindings/${pub.id}`).set(as(bob.key))).status).toBe(204);
    expect(await readAll()).toEqual({
      alicePersonal: 'cached:',
      aliceChild: 'cached:narrow-pub',
      aliceOther: 'cached:',
      bobPersonal: 'queried:',
    });

    // A refused write drops everything, as any failed write does.
    expect(
      (await t.http.put(`/api/users/me/skill-bindings/${pub.id}`).set(as(bob.key)).send({ preload: 1 })).status,
    ).toBe(400);
    expect(Object.values(await readAll()).every((v) => v.startsWith('queried'))).toBe(true);
  });
});
