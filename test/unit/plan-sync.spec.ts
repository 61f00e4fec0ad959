// What a sync decides, as tables: per skill keep, add, change, rebuild, claim or remove; the lock
// it writes before and after; when it asks conditionally; and the exit code. No files, no network.
import { EXIT_FAILED, EXIT_INTEGRITY, EXIT_OK, EXIT_UNRESOLVED } from '../../src/client/errors';
import { LockedSkill, LockFile } from '../../src/client/lock-file';
import {
  Action,
  conditionalFingerprint,
  exitCodeOf,
  Found,
  lockAfter,
  Outcome,
  planSync,
} from '../../src/client/plan-sync';
import { Ref } from '../../src/client/task-skills';

const hash = (c: string): string => `sha256:${c.repeat(64)}`;
const FILES = [{ path: 'SKILL.md', size: 10, sha256: 'a'.repeat(64), mode: '644' as const }];
const NEW_FILES = [{ path: 'SKILL.md', size: 12, sha256: 'b'.repeat(64), mode: '644' as const }];

const ref = (name: string, c = '1'): Ref => ({ name, skill_id: 7, version: Number(c), content_hash: hash(c) });
const locked = (c = '1', extra: Partial<LockedSkill> = {}): LockedSkill => ({
  skill_id: 7,
  version: Number(c),
  content_hash: hash(c),
  files: FILES,
  ...extra,
});

/** One skill for each action: kept, changed, rebuilt, added, claimed and removed. */
const everyAction = () => ({
  previous: { keep: locked(), change: locked(), rebuild: locked(), gone: locked() },
  refs: [ref('keep'), ref('change', '2'), ref('rebuild'), ref('add'), ref('claim')],
  found: new Map<string, Found>([
    ['keep', 'intact'],
    ['change', 'intact'],
    ['rebuild', 'damaged'],
    ['gone', 'intact'],
    ['add', 'free'],
    ['claim', 'occupied'],
  ]),
});

describe('planSync: one action per skill', () => {
  it.each<[string, LockedSkill | undefined, Ref | undefined, Found | undefined, Action]>([
    ['listed, same content, intact: kept', locked(), ref('s'), 'intact', 'keep'],
    ['listed, same content, damaged: rebuilt', locked(), ref('s'), 'damaged', 'rebuild'],
    ['listed, same content, not looked at: rebuilt', locked(), ref('s'), undefined, 'rebuild'],
    [
      'listed, same content, left marked by a killed sync: rebuilt',
      locked('1', { pending: true }),
      ref('s'),
      'intact',
      'rebuild',
    ],
    ['listed, another content hash, intact: changed', locked(), ref('s', '2'), 'intact', 'change'],
    ['listed, another content hash, damaged: changed', locked(), ref('s', '2'), 'damaged', 'change'],
    ['not listed, place free: added', undefined, ref('s'), 'free', 'add'],
    [
      'not listed, something there: claimed (adopted only if it is the package exactly)',
      undefined,
      ref('s'),
      'occupied',
      'claim',
    ],
    ['not listed, not looked at: claimed, never overwritten', undefined, ref('s'), undefined, 'claim'],
    ['listed, left the set: removed', locked(), undefined, 'intact', 'remove'],
    ['listed, left the set, damaged: removed all the same', locked(), undefined, 'damaged', 'remove'],
  ])('%s', (_title, entry, wanted, found, action) => {
    const plan = planSync({
      previous: entry ? { s: entry } : {},
      refs: wanted ? [wanted] : [],
      found: new Map(found ? [['s', found]] : []),
    });
    expect(plan.steps.map((s) => [s.name, s.action])).toEqual([['s', action]]);
  });

  it('a name not in the set and not in the lock is nothing to the plan (files outside its folders are never touched)', () => {
    const plan = planSync({
      previous: {},
      refs: [ref('a')],
      found: new Map([
        ['a', 'free'],
        ['mine', 'occupied'],
      ]),
    });
    expect(plan.steps.map((s) => s.name)).toEqual(['a']);
  });

  it('steps come by name', () => {
    const plan = planSync({
      previous: { c: locked(), a: locked() },
      refs: [ref('d'), ref('b'), ref('a')],
      found: new Map<string, Found>([
        ['a', 'intact'],
        ['b', 'free'],
        ['c', 'intact'],
        ['d', 'occupied'],
      ]),
    });
    expect(plan.steps.map((s) => `${s.name}:${s.action}`)).toEqual(['a:keep', 'b:add', 'c:remove', 'd:claim']);
  });
});

describe('planSync: the lock written before any folder changes', () => {
  it('none when nothing changes, and none for a claim alone (the folder is not the client’s yet)', () => {
    expect(
      planSync({ previous: { a: locked() }, refs: [ref('a')], found: new Map([['a', 'intact']]) }).marked,
    ).toBeNull();
    expect(planSync({ previous: {}, refs: [ref('a')], found: new Map([['a', 'occupied']]) }).marked).toBeNull();
  });

  it('kept names as they were; every name about to be written, rebuilt or removed marked pending; claims left out', () => {
    const plan = planSync(everyAction());
    expect(plan.marked).toEqual({
      keep: locked(),
      change: { ...locked('2'), pending: true },
      rebuild: { ...locked(), pending: true },
      gone: { ...locked(), pending: true },
      add: { ...locked(), files: [], pending: true },
    });
  });
});

describe('lockAfter: the lock once the steps ran', () => {
  const plan = planSync(everyAction());
  const done = (entry?: LockedSkill): Outcome => ({ ok: true, entry });

  it('every step done: the new entries, the removed name gone', () => {
    const outcomes = new Map<string, Outcome>([
      ['change', done(locked('2', { files: NEW_FILES }))],
      ['rebuild', done(locked())],
      ['add', done(locked())],
      ['claim', done(locked())],
      ['gone', done()],
    ]);
    expect(lockAfter(plan, outcomes)).toEqual({
      keep: locked(),
      change: locked('2', { files: NEW_FILES }),
      rebuild: locked(),
      add: locked(),
      claim: locked(),
    });
  });

  it('every step failed or never ran (the deadline came first): what the lock said before, a removal still marked', () => {
    const outcomes = new Map<string, Outcome>([['change', { ok: false }]]);
    expect(lockAfter(plan, outcomes)).toEqual({
      keep: locked(),
      change: locked(),
      rebuild: locked(),
      gone: { ...locked(), pending: true },
    });
  });
});

describe('conditionalFingerprint: If-None-Match only when a 304 would settle everything', () => {
  const run = { url: 'http://h', taskId: 1, preloadOnly: false };
  const lock = (patch: Partial<LockFile> = {}): LockFile => ({
    url: 'http://h',
    task_id: 1,
    preload_only: false,
    fingerprint: hash('f'),
    skills: { a: locked(), b: locked() },
    unresolved: [],
    ...patch,
  });
  const intact = new Map<string, Found>([
    ['a', 'intact'],
    ['b', 'intact'],
  ]);

  it.each<[string, LockFile | null, Map<string, Found>, string | null]>([
    ['every folder intact', lock(), intact, hash('f')],
    ['no lock', null, intact, null],
    ['a lock left incomplete', lock({ fingerprint: null }), intact, null],
    ['a lock of another service', lock({ url: 'http://other' }), intact, null],
    ['a lock of another task', lock({ task_id: 2 }), intact, null],
    ['a lock of the preload set', lock({ preload_only: true }), intact, null],
    [
      'one folder damaged',
      lock(),
      new Map<string, Found>([
        ['a', 'intact'],
        ['b', 'damaged'],
      ]),
      null,
    ],
    ['one folder not looked at', lock(), new Map<string, Found>([['a', 'intact']]), null],
    ['one name marked pending', lock({ skills: { a: locked(), b: locked('1', { pending: true }) } }), intact, null],
    ['a lock listing nothing', lock({ skills: {} }), new Map(), hash('f')],
  ])('%s', (_title, l, found, expected) => {
    expect(conditionalFingerprint(l, run, found)).toBe(expected);
  });
});

describe('exitCodeOf', () => {
  const failure = (exit_code: 1 | 4): { exit_code: 1 | 4 } => ({ exit_code });
  it.each<[string, Array<{ exit_code: 1 | 4 }>, number, boolean, number]>([
    ['all done', [], 0, false, EXIT_OK],
    ['unresolved names, lenient', [], 1, false, EXIT_OK],
    ['unresolved names, --strict', [], 1, true, EXIT_UNRESOLVED],
    ['a failure (network, deadline, a refused folder)', [failure(1)], 0, false, EXIT_FAILED],
    ['a failure wins over --strict', [failure(1)], 1, true, EXIT_FAILED],
    ['integrity wins over a failure', [failure(1), failure(4)], 1, true, EXIT_INTEGRITY],
  ])('%s', (_title, failed, unresolved, strict, code) => {
    const names = Array.from({ length: unresolved }, (_, i) => ({ name: `u${i}` }));
    expect(exitCodeOf(failed, names, strict)).toBe(code);
  });
});
