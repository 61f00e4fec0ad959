// Skill bindings' rules: which bindings a task gets, in what order, and which names they decide.
import {
  applicableBindings,
  bindingGroups,
  decideBindings,
  exceptionProblems,
  groupBindable,
  isExcepted,
  taskMode,
} from '../../src/resolver';
import type { BindingException, BindingFacts, BindingTask, BoundScope } from '../../src/resolver';
import { user } from '../support/resolver-facts';

const creator = user(1, { 'acme/web': 'Developer', tools: 'Reporter' });

function task(teamNamespace: string | null, labels: Record<string, string> = {}, teamId = 7): BindingTask {
  return { creator, teamId, teamNamespace, labels };
}

let nextId = 1;
function bind(
  name: string,
  target: string | number,
  opts: { skillId?: number; scope?: BoundScope; preload?: boolean; exceptions?: BindingException[] } = {},
): BindingFacts {
  const id = nextId++;
  return {
    id,
    skillId: opts.skillId ?? 100 + id,
    name,
    scope: opts.scope ?? 'public',
    target: typeof target === 'number' ? { type: 'user', userId: target } : { type: 'group', groupName: target },
    preload: opts.preload ?? false,
    exceptions: opts.exceptions ?? [],
  };
}

/** Where each decided name came from: `name<-target` (`+` when preloaded). */
function decided(bindings: BindingFacts[], t: BindingTask, named: string[] = []): string[] {
  return decideBindings(bindings, t, new Set(named)).map(
    (d) =>
      `${d.name}<-${d.binding.target.type === 'user' ? `u${d.binding.target.userId}` : d.binding.target.groupName}` +
      (d.preload ? '+' : ''),
  );
}

describe('the groups whose bindings a task gets', () => {
  it.each<[string, Record<string, 'Owner' | 'Developer' | 'Reporter'>, string | null, string[]]>([
    ['a personal team: none', { acme: 'Owner' }, 'default', []],
    ['a gone team: none', { acme: 'Owner' }, null, []],
    ['a member of the team group only', { 'acme/web': 'Reporter' }, 'acme/web', ['acme/web']],
    ['a member of a/b gets nothing of a', { 'acme/web': 'Owner' }, 'acme/web/ui', ['acme/web/ui', 'acme/web']],
    [
      'a member of the root has a role in every level',
      { acme: 'Reporter' },
      'acme/web/ui',
      ['acme/web/ui', 'acme/web', 'acme'],
    ],
    ['no role anywhere in the lineage', { other: 'Owner' }, 'acme/web', []],
    ['a role in a sibling counts for nothing', { 'acme/api': 'Owner' }, 'acme/web', []],
    [
      'roles at two levels: each where it holds',
      { acme: 'Reporter', 'acme/web': 'Owner' },
      'acme/web',
      ['acme/web', 'acme'],
    ],
  ])('%s', (_, roles, namespace, expected) => {
    expect(bindingGroups(user(5, roles), namespace)).toEqual(expected);
  });

  it('an admin without a role gets no group bindings', () => {
    expect(bindingGroups(user(9, {}, true), 'acme/web')).toEqual([]);
  });
});

describe('exceptions', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['taskType matches', { taskType: 'chat' }, true],
    ['type matches when taskType is absent', { type: 'chat' }, true],
    ['taskType decides over type', { taskType: 'code', type: 'chat' }, false],
    ['no mode label', {}, false],
    ['another mode', { taskType: 'code' }, false],
    ['case matters', { taskType: 'Chat' }, false],
  ])('mode "chat": %s', (_, labels, expected) => {
    expect(isExcepted([{ type: 'mode', value: 'chat' }], task('acme/web', labels))).toBe(expected);
  });

  it.each<[string, number, boolean]>([
    ['7', 7, true],
    ['07', 7, false],
    ['8', 7, false],
  ])('team "%s" on team %i: %s', (value, teamId, expected) => {
    expect(isExcepted([{ type: 'team', value }], task('acme/web', {}, teamId))).toBe(expected);
  });

  it('any one matching exception is enough', () => {
    const exceptions: BindingException[] = [
      { type: 'team', value: '99' },
      { type: 'mode', value: 'chat' },
    ];
    expect(isExcepted(exceptions, task('acme/web', { type: 'chat' }))).toBe(true);
    expect(isExcepted(exceptions, task('acme/web', { type: 'code' }))).toBe(false);
    expect(isExcepted([], task('acme/web', { type: 'chat' }))).toBe(false);
  });

  it('a mode label named like an Object member reads only the labels', () => {
    expect(taskMode(Object.create({ taskType: 'inherited' }) as Record<string, string>)).toBeUndefined();
    expect(taskMode({ type: 'x' })).toBe('x');
  });

  it.each<[string, BindingException[], number]>([
    ['none', [], 0],
    ['twenty', Array.from({ length: 20 }, (_, i) => ({ type: 'team' as const, value: String(i) })), 0],
    ['twenty-one', Array.from({ length: 21 }, (_, i) => ({ type: 'team' as const, value: String(i) })), 1],
    ['an empty value', [{ type: 'mode', value: '' }], 1],
    ['128 characters', [{ type: 'mode', value: 'x'.repeat(128) }], 0],
    ['129 characters', [{ type: 'mode', value: 'x'.repeat(129) }], 1],
    ['128 astral characters count as 128', [{ type: 'mode', value: '😀'.repeat(128) }], 0],
    ['an unknown type', [{ type: 'user' as 'mode', value: 'x' }], 1],
  ])('exception problems, %s: %i', (_, exceptions, count) => {
    expect(exceptionProblems(exceptions)).toHaveLength(count);
  });
});

describe('which bindings decide a name', () => {
  it.each<[string, BindingFacts[], BindingTask, string[], string[]]>([
    ['no bindings', [], task('acme/web'), [], []],
    ["the creator's own", [bind('pdf', 1)], task('default'), [], ['pdf<-u1']],
    ["another user's bindings never apply", [bind('pdf', 2)], task('acme/web'), [], []],
    ["the team group's", [bind('lint', 'acme/web', { preload: true })], task('acme/web'), [], ['lint<-acme/web+']],
    [
      'a personal team has user bindings only',
      [bind('pdf', 1), bind('lint', 'acme/web')],
      task('default'),
      [],
      ['pdf<-u1'],
    ],
    ['a gone team has user bindings only', [bind('pdf', 1), bind('lint', 'acme/web')], task(null), [], ['pdf<-u1']],
    ['a group where the creator has no role', [bind('lint', 'acme')], task('acme/web'), [], []],
    ['a sibling group', [bind('lint', 'acme/api')], task('acme/web'), [], []],
    [
      "the user binding decides over the group's, preload and all",
      [bind('pdf', 'acme/web', { preload: true }), bind('pdf', 1)],
      task('acme/web'),
      [],
      ['pdf<-u1'],
    ],
    [
      'the nearest group decides over its ancestors',
      [bind('fmt', 'acme'), bind('fmt', 'acme/web/ui', { preload: true })],
      { ...task('acme/web/ui'), creator: user(1, { acme: 'Reporter' }) },
      [],
      ['fmt<-acme/web/ui+'],
    ],
    [
      'an excepted binding leaves the name to the next one',
      [bind('pdf', 1, { exceptions: [{ type: 'mode', value: 'chat' }] }), bind('pdf', 'acme/web', { preload: true })],
      task('acme/web', { taskType: 'chat' }),
      [],
      ['pdf<-acme/web+'],
    ],
    [
      'an excepted binding that was the only one: nothing',
      [bind('pdf', 'acme/web', { exceptions: [{ type: 'team', value: '7' }] })],
      task('acme/web'),
      [],
      [],
    ],
    [
      "a name another source names is never a binding's",
      [bind('pdf', 1, { preload: true })],
      task('acme/web'),
      ['pdf'],
      [],
    ],
    [
      'other names still are',
      [bind('pdf', 1), bind('lint', 'acme/web')],
      task('acme/web'),
      ['pdf'],
      ['lint<-acme/web'],
    ],
    [
      'sorted by name, each decided by its own first binding',
      [bind('zeta', 'acme/web'), bind('alpha', 1, { preload: true }), bind('mid', 'acme/web', { preload: true })],
      task('acme/web'),
      [],
      ['alpha<-u1+', 'mid<-acme/web+', 'zeta<-acme/web'],
    ],
  ])('%s', (_, bindings, t, named, expected) => {
    expect(decided(bindings, t, named)).toEqual(expected);
  });

  it('a name bound twice by one target ranks as a lookup would: personal, group, public, then id', () => {
    const pub = bind('notes', 1, { scope: 'public', skillId: 5 });
    const personal = bind('notes', 1, { scope: 'personal', skillId: 50 });
    const group = bind('notes', 1, { scope: 'group', skillId: 20 });
    const order = applicableBindings([pub, group, personal], task('default')).map((b) => b.skillId);
    expect(order).toEqual([50, 20, 5]);
    expect(decideBindings([pub, group, personal], task('default'), new Set())[0].binding).toBe(personal);
    const twins = [bind('x', 1, { skillId: 9 }), bind('x', 1, { skillId: 3 })];
    expect(applicableBindings(twins, task('default')).map((b) => b.skillId)).toEqual([3, 9]);
  });

  it('the input order decides nothing', () => {
    const bindings = [bind('a', 'tools'), bind('a', 1), bind('b', 'acme/web'), bind('b', 'tools'), bind('c', 1)];
    const t = task('acme/web');
    const expected = decided(bindings, t);
    expect(decided([...bindings].reverse(), t)).toEqual(expected);
    expect(expected).toEqual(['a<-u1', 'b<-acme/web', 'c<-u1']);
  });
});

describe('what a group may bind', () => {
  it.each<[string, { namespace: string; isPublic: boolean }, string]>([
    ['its own skill', { namespace: 'acme/web', isPublic: false }, 'ok'],
    ['a public skill', { namespace: 'default', isPublic: true }, 'ok'],
    ["its parent's skill", { namespace: 'acme', isPublic: false }, 'SCOPE_MISMATCH'],
    ["its child's skill", { namespace: 'acme/web/ui', isPublic: false }, 'SCOPE_MISMATCH'],
    ['a personal skill', { namespace: 'default', isPublic: false }, 'SCOPE_MISMATCH'],
    ["another group's skill", { namespace: 'tools', isPublic: false }, 'SCOPE_MISMATCH'],
  ])('%s: %s', (_, skill, expected) => {
    expect(groupBindable('acme/web', skill)).toBe(expected);
  });
});
