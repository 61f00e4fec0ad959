import type { SkillFacts } from '../../src/resolver';
import {
  answersOf,
  argumentsFor,
  finds,
  lookupKey,
  lookupsOf,
  ReachLookup,
} from '../../src/selection-facts/reach-lookups';
import type { ReachArguments } from '../../src/selection-facts/resolution-facts.repository';

const args = (over: Partial<ReachArguments>): ReachArguments => ({
  ids: [],
  names: [],
  groups: [],
  owners: [],
  versions: [],
  ...over,
});

function skill(id: number, name: string, namespace: string, isPublic: boolean, ownerUserId: number | null): SkillFacts {
  return { id, name, namespace, isPublic, ownerUserId, deleted: false, latest: null, versions: {}, tags: {} };
}

// One name in every scope, and a second name: what the skill query's branches tell apart.
const PUBLIC = skill(1, 'pdf', 'default', true, null);
const GROUP = skill(2, 'pdf', 'data', false, null);
const PUBLIC_IN_GROUP = skill(3, 'pdf', 'ops', true, null);
const ALICE = skill(4, 'pdf', 'default', false, 10);
const BOB = skill(5, 'pdf', 'default', false, 11);
const OTHER_NAME = skill(6, 'csv', 'data', false, null);
const ALL = [PUBLIC, GROUP, PUBLIC_IN_GROUP, ALICE, BOB, OTHER_NAME];

describe('reach lookups: the skill query cut into the lookups it answers', () => {
  it.each<[string, ReachArguments, string[]]>([
    ['nothing', args({}), []],
    ['ids only', args({ ids: [7, 3] }), ['i\n7', 'i\n3']],
    ['a name, no scope: the public lookup alone', args({ names: ['pdf'] }), ['p\npdf']],
    [
      'names in groups and of owners: every name in every scope',
      args({ names: ['pdf', 'csv'], groups: ['data'], owners: [10] }),
      ['p\npdf', 'g\ndata\npdf', 'o\n10\npdf', 'p\ncsv', 'g\ndata\ncsv', 'o\n10\ncsv'],
    ],
    ['groups and owners without a name: no lookup', args({ groups: ['data'], owners: [10] }), []],
  ])('lookupsOf: %s', (_what, reach, keys) => {
    expect(lookupsOf(reach).map(lookupKey)).toEqual(keys);
  });

  it.each<[string, ReachLookup, SkillFacts[]]>([
    ['by id', { kind: 'id', id: 4 }, [ALICE]],
    ['public: public skills of the name, in any namespace', { kind: 'public', name: 'pdf' }, [PUBLIC, PUBLIC_IN_GROUP]],
    ['group: every skill of the name in the group', { kind: 'group', group: 'ops', name: 'pdf' }, [PUBLIC_IN_GROUP]],
    ['group: not another name', { kind: 'group', group: 'data', name: 'pdf' }, [GROUP]],
    ['personal: the owner’s own, not public', { kind: 'personal', owner: 10, name: 'pdf' }, [ALICE]],
    ['personal: an owner with none', { kind: 'personal', owner: 12, name: 'pdf' }, []],
    ['a name nobody has', { kind: 'public', name: 'zip' }, []],
  ])('finds: %s', (_what, lookup, found) => {
    expect(ALL.filter((s) => finds(lookup, s))).toEqual(found);
  });

  it.each<[string, ReachLookup[], ReachArguments]>([
    ['nothing', [], args({})],
    [
      'ids and names with their scopes, each once',
      [
        { kind: 'id', id: 3 },
        { kind: 'public', name: 'pdf' },
        { kind: 'group', group: 'data', name: 'pdf' },
        { kind: 'group', group: 'data', name: 'csv' },
        { kind: 'personal', owner: 10, name: 'csv' },
        { kind: 'id', id: 3 },
      ],
      args({ ids: [3], names: ['pdf', 'csv'], groups: ['data'], owners: [10] }),
    ],
  ])('argumentsFor: %s', (_what, lookups, expected) => {
    expect(argumentsFor(lookups)).toEqual(expected);
  });

  it('argumentsFor covers every lookup it was given', () => {
    const lookups: ReachLookup[] = [
      { kind: 'group', group: 'data', name: 'pdf' },
      { kind: 'personal', owner: 11, name: 'csv' },
      { kind: 'id', id: 9 },
    ];
    const covered = new Set(lookupsOf(argumentsFor(lookups)).map(lookupKey));
    expect(lookups.map(lookupKey).filter((key) => !covered.has(key))).toEqual([]);
  });

  it("answersOf: each lookup's skill ids among the query's answer, none where nothing matches", () => {
    const reach = args({ ids: [6, 99], names: ['pdf', 'zip'], groups: ['data'], owners: [10, 11] });
    const queried = ALL.filter((s) => lookupsOf(reach).some((l) => finds(l, s)));
    expect(Object.fromEntries(answersOf(reach, queried))).toEqual({
      'i\n6': [6],
      'i\n99': [],
      'p\npdf': [1, 3],
      'g\ndata\npdf': [2],
      'o\n10\npdf': [4],
      'o\n11\npdf': [5],
      'p\nzip': [],
      'g\ndata\nzip': [],
      'o\n10\nzip': [],
      'o\n11\nzip': [],
    });
  });
});
