import type { SkillReach, TaskSelectionFacts } from '../../src/selection-facts/resolution-facts.repository';
import {
  fromLookedAhead,
  ghostReach,
  LookedAhead,
  reachArguments,
  ReachArguments,
  reachFilter,
  reachOf,
  taskReach,
} from '../../src/selection-facts/skill-reach';
import type { SkillFacts } from '../../src/resolver';
import { skill, user } from '../support/resolver-facts';

const reach = (over: Partial<SkillReach>): SkillReach => ({
  names: [],
  namespaces: [],
  ids: [],
  versions: [],
  personalOwners: [],
  ...over,
});

const REACH = reach({ names: ['pdf'], namespaces: ['default', 'org/team'], ids: [99], personalOwners: [7] });

describe('reachFilter (the rows the skill query selects, in memory)', () => {
  it.each<[string, SkillFacts, boolean]>([
    ['a public skill of a named name', skill(1, 'pdf', { isPublic: true }), true],
    ['a public skill of another name', skill(2, 'xlsx', { isPublic: true }), false],
    ['a skill of a named group', skill(3, 'pdf', { ns: 'org/team' }), true],
    ['a skill of another group', skill(4, 'pdf', { ns: 'org/other' }), false],
    ['a personal skill of a named owner', skill(5, 'pdf', { owner: 7 }), true],
    [
      "a personal skill of someone else ('default' in the namespaces reaches nobody's)",
      skill(6, 'pdf', { owner: 8 }),
      false,
    ],
    ['any skill named by id, whatever its name and scope', skill(99, 'other', { ns: 'org/other' }), true],
    ['a deleted skill is selected like any other', skill(7, 'pdf', { owner: 7 }, { deleted: true }), true],
  ])('%s', (_what, candidate, selected) => {
    expect(reachFilter(REACH)(candidate)).toBe(selected);
  });
});

describe("a task's reach, split into the ghosts' part and its own", () => {
  const facts: TaskSelectionFacts = {
    task: {
      id: 1,
      teamId: 2,
      ownerUserId: 10,
      namespace: 'org',
      labels: { requestedSkillRefs: JSON.stringify([{ name: 'mine', namespace: 'org/x', is_public: false }]) },
    },
    team: { id: 2, namespace: 'org' },
    ghosts: [
      {
        ownerUserId: 11,
        skills: ['a', 'b'],
        preloadSkills: ['c'],
        skillRefs: { a: { skill_id: 5, version: 2, pinned: true } },
        preloadSkillRefs: {},
      },
    ],
    subscription: { ownerUserId: 12, skillRefs: [{ name: 'sub', namespace: 'default', is_public: true, version: 4 }] },
    identities: { 10: user(10), 11: user(11), 12: user(12) },
    ghostIds: [3],
    bindings: [],
  };

  it("the ghosts' part: their names, the team's namespace, their owners, their refs and pins", () => {
    expect(ghostReach(facts)).toEqual({
      names: ['a', 'b', 'c'],
      namespaces: ['org'],
      ids: [5],
      versions: [2],
      personalOwners: [11],
    });
  });

  it("the task's own: subscription, labels and message, personal skills of those who act (creator, subscription owner, caller)", () => {
    const own = taskReach(facts, {
      callerUserId: 10,
      selections: [{ name: 'msg', namespace: 'default', is_public: false }],
    });
    expect(own).toEqual({
      names: ['sub', 'mine', 'msg'],
      namespaces: ['org', 'default', 'org/x', 'default'],
      ids: [],
      versions: [4],
      personalOwners: [10, 12, 10],
    });
  });

  it('together they reach what the one query did', () => {
    const all = reachOf(facts, null);
    expect(new Set(all.names)).toEqual(new Set(['a', 'b', 'c', 'sub', 'mine']));
    expect(new Set(all.personalOwners)).toEqual(new Set([10, 11, 12]));
    expect(new Set(all.versions)).toEqual(new Set([2, 4]));
  });
});

describe('reachArguments (what the skill query is given)', () => {
  it('each value once, only values a row could hold, groups without `default`', () => {
    expect(
      reachArguments(
        reach({
          names: ['pdf', 'pdf', 'Not A Name', ''],
          namespaces: ['default', 'org/team', 'org/team', '../x'],
          ids: [3, 3, 0, -1, 2 ** 31],
          versions: [2, 2.5],
          personalOwners: [7, 7, 0],
        }),
      ),
    ).toEqual({ ids: [3], names: ['pdf'], groups: ['org/team'], owners: [7], versions: [2] });
  });
});

describe("fromLookedAhead (the task statement's skills, used only when they cover the reach)", () => {
  const WANTED = reach({
    names: ['pdf', 'xlsx'],
    namespaces: ['default', 'org/team'],
    ids: [99],
    versions: [3],
    personalOwners: [7],
  });
  const HAD: ReachArguments = {
    ids: [99, 100],
    names: ['pdf', 'xlsx', 'name', 'namespace', 'org/team'],
    groups: ['pdf', 'xlsx', 'name', 'org/team', 'org'],
    owners: [7, 8],
    versions: [3],
  };
  const SKILLS = [
    skill(1, 'pdf', { isPublic: true }),
    skill(2, 'xlsx', { ns: 'org/team' }),
    skill(3, 'pdf', { owner: 7 }),
    skill(4, 'pdf', { owner: 8 }),
    skill(5, 'name', { isPublic: true }),
    skill(99, 'bound', { ns: 'org/other' }),
    skill(100, 'other-bound', { ns: 'org/other' }),
  ];
  const ahead = (over: Partial<ReachArguments>): LookedAhead => ({ arguments: { ...HAD, ...over }, skills: SKILLS });

  it('covered: exactly the rows the skill query would give, the extra ones left out', () => {
    expect(fromLookedAhead(ahead({}), WANTED)?.map((s) => s.id)).toEqual([1, 2, 3, 99]);
  });

  it.each<[string, Partial<ReachArguments>]>([
    ['a bound id not looked up', { ids: [100] }],
    ['a name not looked up', { names: ['pdf'] }],
    ['a group not looked up', { groups: ['org'] }],
    ['an owner not looked up', { owners: [8] }],
    ['a pinned version not looked up', { versions: [] }],
    ['a pinned version too many (every skill would carry it)', { versions: [3, 4] }],
  ])('not covered, the skill query runs: %s', (_what, over) => {
    expect(fromLookedAhead(ahead(over), WANTED)).toBeUndefined();
  });

  it('nothing looked up ahead: the skill query runs', () => {
    expect(fromLookedAhead(undefined, WANTED)).toBeUndefined();
  });

  it('values no row could hold need no cover (the skill query is never given them)', () => {
    const odd = reach({ names: ['pdf', 'Bad Name'], namespaces: ['default', '../x'], ids: [0], personalOwners: [7] });
    expect(fromLookedAhead(ahead({ versions: [] }), odd)?.map((s) => s.id)).toEqual([1, 3]);
  });
});
