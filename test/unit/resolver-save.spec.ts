// The write paths' rules: ghost save (docs/api.md#resources), selection validation, persisting a message into
// task labels (docs/resolution.md#executionrequest) and which selections refer to a skill (docs/packages.md#deleting).
import {
  SkillCatalog,
  invalidSelections,
  mergeMessageSelections,
  selectionRefersTo,
  validateGhostSkills,
} from '../../src/resolver';
import type {
  ExplicitSelection,
  GhostSaveResult,
  GhostSkillsInput,
  Identity,
  InvalidReason,
  SkillFacts,
} from '../../src/resolver';
import { skill, user } from '../support/resolver-facts';

const alice = user(1, { 'team-a': 'Owner' });
const bob = user(2, { 'team-a': 'Maintainer' });
const carol = user(3);
const admin = user(9, {}, true);

const catalog = new SkillCatalog([
  skill(10, 'notes', { owner: 1 }),
  skill(11, 'notes', { ns: 'team-a' }),
  skill(12, 'notes', { isPublic: true }),
  skill(20, 'alice-only', { owner: 1 }),
  skill(30, 'lint', { ns: 'team-a' }, { versions: 2 }),
  skill(31, 'lint', { isPublic: true }),
  skill(40, 'secret', { ns: 'other' }),
  skill(50, 'fmt', { isPublic: true }, { versions: 3 }),
  skill(60, 'gone', { ns: 'team-a' }, { deleted: true }),
  skill(70, 'renamed', { isPublic: true }),
]);

const sel = (name: string, namespace: string, is_public = false, version?: number): ExplicitSelection =>
  version === undefined ? { name, namespace, is_public } : { name, namespace, is_public, version };

describe('validateGhostSkills', () => {
  interface Case {
    title: string;
    body: Partial<GhostSkillsInput>;
    owner?: Identity;
    saver?: Identity;
    namespace?: string;
    expected: GhostSaveResult;
  }
  const invalid = (...entries: [string, InvalidReason][]): GhostSaveResult => ({
    ok: false,
    invalid: entries.map(([name, reason]) => ({ name, reason })),
  });

  it.each<Case>([
    {
      title: 'names without refs are looked up as the owner in the ghost namespace',
      body: { skills: ['notes', 'lint', 'fmt'], preload_skills: ['lint'] },
      expected: {
        ok: true,
        skillRefs: { notes: { skill_id: 10 }, lint: { skill_id: 30 }, fmt: { skill_id: 50 } },
        preloadSkillRefs: {},
      },
    },
    {
      title: 'a lookup in default skips groups',
      body: { skills: ['lint'] },
      owner: bob,
      saver: bob,
      namespace: 'default',
      expected: { ok: true, skillRefs: { lint: { skill_id: 31 } }, preloadSkillRefs: {} },
    },
    {
      title: 'client refs: pinned stores version and pinned, unpinned only the id, content_hash ignored',
      body: {
        skills: ['fmt', 'lint', 'notes'],
        preload_skills: ['fmt'],
        skill_refs: {
          fmt: { skill_id: 50, version: 2, content_hash: 'sha256:whatever' },
          lint: { skill_id: 30, version: 1, pinned: false, namespace: 'team-a', is_public: false },
          notes: { skill_id: 12, pinned: true },
        },
        preload_skill_refs: { fmt: { skill_id: 50, version: 3, pinned: true } },
      },
      expected: {
        ok: true,
        skillRefs: { fmt: { skill_id: 50, version: 2, pinned: true }, lint: { skill_id: 30 }, notes: { skill_id: 12 } },
        preloadSkillRefs: { fmt: { skill_id: 50, version: 3, pinned: true } },
      },
    },
    {
      title: 'unknown names and unknown ids are NOT_FOUND',
      body: { skills: ['nope', 'lint'], skill_refs: { lint: { skill_id: 999 } } },
      expected: invalid(['lint', 'NOT_FOUND'], ['nope', 'NOT_FOUND']),
    },
    {
      title: 'a ref the owner may not read is NOT_FOUND, like an unknown one',
      body: { skills: ['lint', 'secret'], skill_refs: { lint: { skill_id: 30 }, secret: { skill_id: 40 } } },
      owner: carol,
      saver: admin,
      expected: invalid(['lint', 'NOT_FOUND'], ['secret', 'NOT_FOUND']),
    },
    {
      title: 'the owner’s personal skill is NOT_FOUND when the saver may not read it',
      body: { skills: ['alice-only', 'notes'], skill_refs: { notes: { skill_id: 10 } } },
      saver: bob,
      expected: invalid(['alice-only', 'NOT_FOUND'], ['notes', 'NOT_FOUND']),
    },
    {
      title: 'an admin saver reads everything the owner reads',
      body: { skills: ['alice-only'] },
      saver: admin,
      expected: { ok: true, skillRefs: { 'alice-only': { skill_id: 20 } }, preloadSkillRefs: {} },
    },
    {
      title: 'deleted, renamed and missing pinned versions are NOT_FOUND',
      body: {
        skills: ['gone', 'old-name', 'fmt'],
        skill_refs: { gone: { skill_id: 60 }, 'old-name': { skill_id: 70 }, fmt: { skill_id: 50, version: 7 } },
      },
      expected: invalid(['fmt', 'NOT_FOUND'], ['gone', 'NOT_FOUND'], ['old-name', 'NOT_FOUND']),
    },
    {
      title: 'a sent namespace or is_public must agree with the skill',
      body: {
        skills: ['lint', 'fmt', 'notes'],
        skill_refs: {
          lint: { skill_id: 30, namespace: 'default' },
          fmt: { skill_id: 50, is_public: false },
          notes: { skill_id: 12, namespace: 'default', is_public: true },
        },
      },
      expected: invalid(['fmt', 'SCOPE_MISMATCH'], ['lint', 'SCOPE_MISMATCH']),
    },
    {
      title: 'an unreadable ref is NOT_FOUND before any scope mismatch',
      body: { skills: ['secret'], skill_refs: { secret: { skill_id: 40, namespace: 'wrong' } } },
      expected: invalid(['secret', 'NOT_FOUND']),
    },
    {
      title: 'preload names must be in skills',
      body: { skills: ['lint'], preload_skills: ['lint', 'fmt'] },
      expected: invalid(['fmt', 'NOT_IN_SKILLS']),
    },
    {
      title: 'ref-map keys must be names of their list (NOT_IN_SKILLS)',
      body: {
        skills: ['lint'],
        skill_refs: { fmt: { skill_id: 50 } },
        preload_skill_refs: { lint: { skill_id: 30 } },
      },
      expected: invalid(['fmt', 'NOT_IN_SKILLS'], ['lint', 'NOT_IN_SKILLS']),
    },
    {
      title: 'a bad preload ref makes the name invalid',
      body: {
        skills: ['lint'],
        preload_skills: ['lint'],
        preload_skill_refs: { lint: { skill_id: 31, is_public: false } },
      },
      expected: invalid(['lint', 'SCOPE_MISMATCH']),
    },
    {
      title: 'one entry per name, the structural problem first, sorted by name',
      body: {
        skills: ['zeta', 'alpha'],
        preload_skills: ['beta'],
        skill_refs: { beta: { skill_id: 999 } },
      },
      expected: invalid(['alpha', 'NOT_FOUND'], ['beta', 'NOT_IN_SKILLS'], ['zeta', 'NOT_FOUND']),
    },
    {
      title: 'names that are Object members are plain names',
      body: { skills: ['constructor'], preload_skill_refs: { toString: { skill_id: 1 } } },
      expected: invalid(['constructor', 'NOT_FOUND'], ['toString', 'NOT_IN_SKILLS']),
    },
  ])('$title', ({ body, owner, saver, namespace, expected }) => {
    const result = validateGhostSkills({
      body: { skills: [], preload_skills: [], skill_refs: {}, preload_skill_refs: {}, ...body },
      owner: owner ?? alice,
      saver: saver ?? owner ?? alice,
      namespace: namespace ?? 'team-a',
      catalog,
    });
    expect(result).toEqual(expected);
  });
});

describe('invalidSelections (task skill_selection, subscription skill_refs)', () => {
  it.each<[string, Identity, ExplicitSelection[], Identity | undefined, string[]]>([
    ['all resolve', bob, [sel('lint', 'team-a'), sel('fmt', 'default', true, 2)], undefined, []],
    ['default is the actor’s own', bob, [sel('notes', 'default')], undefined, ['notes']],
    ['a foreign group', bob, [sel('secret', 'other')], undefined, ['secret']],
    ['a deleted scope', bob, [sel('gone', 'team-a')], undefined, ['gone']],
    ['a pinned version that does not exist', bob, [sel('fmt', 'default', true, 9)], undefined, ['fmt']],
    ['a saver who may not read the owner’s skill', alice, [sel('notes', 'default')], bob, ['notes']],
    ['an admin saver', alice, [sel('notes', 'default')], admin, []],
    [
      'sorted, each name once',
      carol,
      [sel('zz', 'default'), sel('lint', 'team-a'), sel('zz', 'x')],
      undefined,
      ['lint', 'zz'],
    ],
  ])('%s', (_title, actor, selections, saver, expected) => {
    const result = invalidSelections(catalog, actor, selections, saver);
    expect(result.map((entry) => entry.name)).toEqual(expected);
    expect(result.every((entry) => entry.reason === 'NOT_FOUND')).toBe(true);
  });
});

describe('mergeMessageSelections (persist: true)', () => {
  const refs = (...selections: ExplicitSelection[]) => ({ requestedSkillRefs: JSON.stringify(selections) });
  it.each<[string, Record<string, string>, ExplicitSelection[], ExplicitSelection[]]>([
    ['no selections yet', {}, [sel('fmt', 'default', true)], [sel('fmt', 'default', true)]],
    [
      'legacy names become the scopes they resolve to now; names resolving to nothing are dropped',
      { additionalSkills: '["notes","nope","lint"]' },
      [],
      [sel('notes', 'default'), sel('lint', 'team-a')],
    ],
    [
      'same-name entries are replaced in place, the rest appended in order',
      refs(sel('lint', 'team-a'), sel('notes', 'team-a')),
      [sel('fmt', 'default', true), sel('lint', 'default', true), sel('zz', 'default')],
      [sel('lint', 'default', true), sel('notes', 'team-a'), sel('fmt', 'default', true), sel('zz', 'default')],
    ],
    ['tasks never pin', {}, [sel('fmt', 'default', true, 2)], [sel('fmt', 'default', true)]],
    [
      'a repeated name keeps its first entry',
      {},
      [sel('fmt', 'default', true), sel('fmt', 'team-a')],
      [sel('fmt', 'default', true)],
    ],
  ])('%s', (_title, labels, message, expected) => {
    // Alice created the task; her `notes` is personal, and she is Owner of team-a.
    expect(mergeMessageSelections(catalog, alice, 'team-a', labels, message)).toEqual({
      requestedSkillRefs: expected,
      additionalSkills: expected.map((s) => s.name),
    });
  });
});

describe('selectionRefersTo (SKILL_REFERENCED)', () => {
  const personal = skill(1, 'x', { owner: 5 });
  const group = skill(2, 'x', { ns: 'g' });
  const pub = skill(3, 'x', { isPublic: true });
  it.each<[string, ExplicitSelection, number, SkillFacts, boolean]>([
    ['a public selection, a public skill', sel('x', 'default', true), 1, pub, true],
    ['a public selection, a personal skill', sel('x', 'default', true), 5, personal, false],
    ['default, acting as the owner', sel('x', 'default'), 5, personal, true],
    ['default, acting as someone else', sel('x', 'default'), 6, personal, false],
    ['default never means the public skill', sel('x', 'default'), 5, pub, false],
    ['the same group', sel('x', 'g'), 1, group, true],
    ['another group', sel('x', 'h'), 1, group, false],
    ['another name', sel('y', 'g'), 1, group, false],
  ])('%s', (_title, selection, actingUserId, target, expected) => {
    expect(selectionRefersTo(selection, actingUserId, target)).toBe(expected);
  });
});
