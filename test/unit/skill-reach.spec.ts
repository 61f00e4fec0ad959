import type { SkillReach, TaskSelectionFacts } from '../../src/selection-facts/resolution-facts.repository';
import { lookupKey } from '../../src/selection-facts/reach-lookups';
import {
  ghostReach,
  Message,
  reachFilter,
  reachOf,
  taskLookups,
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

describe("taskLookups: each of the task's own selections in the scope it is resolved in", () => {
  const CREATOR = 1;
  const OWNER = 2;
  const CALLER = 3;
  const base = (over: Partial<TaskSelectionFacts>): TaskSelectionFacts => ({
    task: { id: 1, teamId: 2, ownerUserId: CREATOR, namespace: 'org/team', labels: {} },
    team: { id: 2, namespace: 'org/team' },
    ghosts: [],
    subscription: null,
    identities: {},
    ghostIds: [],
    bindings: [],
    ...over,
  });
  const refs = (...list: Array<[string, string, boolean]>): string =>
    JSON.stringify(list.map(([name, namespace, is_public]) => ({ name, namespace, is_public })));
  const binding = (skillId: number): TaskSelectionFacts['bindings'][number] =>
    ({ skillId }) as TaskSelectionFacts['bindings'][number];

  it.each<[string, TaskSelectionFacts, Message | null, string[]]>([
    ['nothing selected', base({}), null, []],
    [
      "the task's refs, as the creator: public, a group, the creator's own",
      base({
        task: {
          ...base({}).task,
          labels: { requestedSkillRefs: refs(['a', 'x', true], ['b', 'org/data', false], ['c', 'default', false]) },
        },
      }),
      null,
      ['p\na', 'g\norg/data\nb', 'o\n1\nc'],
    ],
    [
      "names: the creator's own, public, the team's group",
      base({ task: { ...base({}).task, labels: { additionalSkills: '["n"]' } } }),
      null,
      ['o\n1\nn', 'p\nn', 'g\norg/team\nn'],
    ],
    [
      "names of a task whose team is gone: the creator's own and public",
      base({ team: null, task: { ...base({}).task, labels: { additionalSkills: '["n"]' } } }),
      null,
      ['o\n1\nn', 'p\nn'],
    ],
    [
      "the subscription's refs as its owner, a message's as its caller",
      base({
        subscription: { ownerUserId: OWNER, skillRefs: [{ name: 's', namespace: 'default', is_public: false }] },
      }),
      { callerUserId: CALLER, selections: [{ name: 'm', namespace: 'default', is_public: false }] },
      ['o\n2\ns', 'o\n3\nm'],
    ],
    ['bindings by id', base({ bindings: [binding(5), binding(6)] }), null, ['i\n5', 'i\n6']],
    [
      'a malformed ref and a name no skill can have: no lookup',
      base({
        task: {
          ...base({}).task,
          labels: {
            requestedSkillRefs: JSON.stringify([
              { name: 'ok', is_public: 'yes' },
              { name: '', namespace: 'default', is_public: true },
            ]),
          },
        },
      }),
      null,
      [],
    ],
  ])('%s', (_what, facts, message, keys) => {
    expect(taskLookups(facts, message).map(lookupKey)).toEqual(keys);
  });
});
