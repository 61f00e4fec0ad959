import { ChangeGeneration } from '../../src/cache/change-generation';
import { SkillLookupCache } from '../../src/resolution/skill-lookup-cache';
import { lookupsOf } from '../../src/selection-facts/reach-lookups';
import type { SkillFacts } from '../../src/resolver';
import { ReachArguments, ResolutionFactsRepository } from '../../src/selection-facts/resolution-facts.repository';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

// The kept lookups answer what the skill query answers, reach for reach, on a real database: a
// catalog where each name exists in several scopes (public, two groups, two users' own, deleted).
describe('skill lookups kept between resolutions answer what the skill query answers', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let bob: TestUser;
  let repo: ResolutionFactsRepository;
  let changes: ChangeGeneration;
  const NAMES = ['lk-pdf', 'lk-csv', 'lk-git', 'lk-none'];
  const GROUPS = ['lk-a', 'lk-b', 'lk-empty'];
  let owners: number[];
  let ids: number[];

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
    await s.group(alice, 'lk-a', [[bob, 'Developer']]);
    await s.group(alice, 'lk-b');
    await s.group(alice, 'lk-empty');
    owners = [alice.id, bob.id, 999_999];
    ids = [];
    for (const [name, scope, who] of [
      ['lk-pdf', 'public', ADMIN_KEY],
      ['lk-pdf', 'lk-a', alice],
      ['lk-pdf', 'default', alice],
      ['lk-pdf', 'default', bob],
      ['lk-csv', 'lk-a', alice],
      ['lk-csv', 'lk-b', alice],
      ['lk-csv', 'default', bob],
      ['lk-git', 'public', ADMIN_KEY],
    ] as const) {
      ids.push((await s.skill(who, name, scope)).id);
    }
    const gone = await s.skill(alice, 'lk-git', 'lk-b');
    expect((await t.http.delete(`/api/skills/${gone.id}?force=true`).set(as(alice.key))).status).toBe(204);
    ids.push(gone.id, 2_000_000);
    repo = t.app.get(ResolutionFactsRepository);
    changes = t.app.get(ChangeGeneration);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A reach drawn from the pools with a seeded generator, so a failure is the same on every run. */
  function randomReaches(count: number, seed: number): ReachArguments[] {
    let state = seed;
    const next = (): number => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const some = <T>(pool: readonly T[]): T[] => pool.filter(() => next() < 0.4);
    return Array.from({ length: count }, () => ({
      ids: some(ids),
      names: some(NAMES),
      groups: some(GROUPS),
      owners: some(owners),
      versions: [],
    }));
  }

  const sorted = (skills: SkillFacts[]): SkillFacts[] => [...skills].sort((a, b) => a.id - b.id);

  async function compare(cache: SkillLookupCache, reaches: ReachArguments[]): Promise<{ queried: number }> {
    let queried = 0;
    for (const args of reaches) {
      const direct = await repo.loadReached(args);
      const kept = await cache.load(lookupsOf(args), args, changes.current(), (asked) => {
        queried++;
        return repo.loadReached(asked);
      });
      expect({ args, skills: kept.skills }).toEqual({ args, skills: sorted(direct) });
    }
    return { queried };
  }

  it('300 random reaches: every answer the same; the query runs less as lookups are kept', async () => {
    await t.heard();
    const cache = new SkillLookupCache(changes, 1_000);
    const first = await compare(cache, randomReaches(150, 7));
    const second = await compare(cache, randomReaches(150, 7));
    expect(first.queried).toBeGreaterThan(0);
    expect(second.queried).toBe(0);
  });

  it('a skill published under a name looked up before (found nothing) is found after the change', async () => {
    await t.heard();
    const cache = new SkillLookupCache(changes, 1_000);
    const reach: ReachArguments = { ids: [], names: ['lk-none'], groups: ['lk-empty'], owners: [], versions: [] };
    expect((await cache.load(lookupsOf(reach), reach, changes.current(), (a) => repo.loadReached(a))).skills).toEqual(
      [],
    );
    const created = await s.skill(alice, 'lk-none', 'lk-empty');
    const after = await cache.load(lookupsOf(reach), reach, changes.current(), (a) => repo.loadReached(a));
    expect(after.skills.map((skill) => skill.id)).toEqual([created.id]);
  });

  it('a reach that pins versions is queried whole every time, and keeps nothing', async () => {
    await t.heard();
    const cache = new SkillLookupCache(changes, 1_000);
    const pinned: ReachArguments = { ids: [ids[0]], names: ['lk-pdf'], groups: [], owners: [], versions: [1] };
    let queried = 0;
    const query = (a: ReachArguments): Promise<SkillFacts[]> => {
      queried++;
      expect(a).toEqual(pinned);
      return repo.loadReached(a);
    };
    await cache.load(lookupsOf(pinned), pinned, changes.current(), query);
    await cache.load(lookupsOf(pinned), pinned, changes.current(), query);
    expect(queried).toBe(2);
    const unpinned = { ...pinned, versions: [] };
    await cache.load(lookupsOf(unpinned), unpinned, changes.current(), (a) => repo.loadReached(a));
    let again = 0;
    await cache.load(lookupsOf(unpinned), unpinned, changes.current(), (a) => {
      again++;
      return repo.loadReached(a);
    });
    expect(again).toBe(0);
  });
});
