import type { SkillReach, TaskSelectionFacts } from '../../src/selection-facts/resolution-facts.repository';
import { ghostReach, reachFilter, reachOf, taskReach } from '../../src/selection-facts/skill-reach';
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

  it("the task's own: subscription, labels and message, for every identity involved", () => {
    const own = taskReach(facts, {
      callerUserId: 10,
      selections: [{ name: 'msg', namespace: 'default', is_public: false }],
    });
    expect(own).toEqual({
      names: ['sub', 'mine', 'msg'],
      namespaces: ['org', 'default', 'org/x', 'default'],
      ids: [],
      versions: [4],
      personalOwners: [10, 11, 12],
    });
  });

  it('together they reach what the one query did', () => {
    const all = reachOf(facts, null);
    expect(new Set(all.names)).toEqual(new Set(['a', 'b', 'c', 'sub', 'mine']));
    expect(new Set(all.personalOwners)).toEqual(new Set([10, 11, 12]));
    expect(new Set(all.versions)).toEqual(new Set([2, 4]));
  });
});
