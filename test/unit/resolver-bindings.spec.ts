// Skill bindings' rules: which bindings a task gets, in what order, and which names they decide.
import {
  applicableBindings,
  decideGhosts,
  resolveTask,
  bindingGroups,
  decideBindings,
  exceptionProblems,
  groupBindable,
  isExcepted,
  readersMayRead,
  taskMode,
} from '../../src/resolver';
import type {
  BindingException,
  BindingFacts,
  BindingTask,
  ExplicitSelection,
  GhostFacts,
  Resolution,
  ResolutionFacts,
} from '../../src/resolver';
import { skill, user } from '../support/resolver-facts';

const creator = user(1, { 'acme/web': 'Developer', tools: 'Reporter' });

/** A task of a team in `teamNamespace` (null: the team is gone; the task keeps `taskNamespace`). */
function task(
  teamNamespace: string | null,
  labels: Record<string, string> = {},
  teamId = 7,
  taskNamespace = teamNamespace ?? 'acme/web',
): BindingTask {
  return { creator, teamId, teamNamespace, taskNamespace, labels };
}

/** Where a bound skill lives: `personal`, `public`, or a group's name. */
type Scope = string;

function scoped(scope: Scope): { namespace: string; isPublic: boolean } {
  if (scope === 'public') return { namespace: 'default', isPublic: true };
  return { namespace: scope === 'personal' ? 'default' : scope, isPublic: false };
}

let nextId = 1;
function bind(
  name: string,
  target: string | number,
  opts: { skillId?: number; scope?: Scope; preload?: boolean; exceptions?: BindingException[] } = {},
): BindingFacts {
  const id = nextId++;
  return {
    id,
    skillId: opts.skillId ?? 100 + id,
    name,
    ...scoped(opts.scope ?? 'public'),
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

describe("the readers' rule: a binding reaches a task only when every reader of the task may read its skill", () => {
  it.each<[string, Scope, boolean]>([
    // A group task is read by roles in its group (held in its children too), and by admins.
    ['acme/web', 'public', true],
    ['acme/web', 'acme/web', true],
    ['acme/web', 'acme/web/ui', true],
    ['acme/web', 'acme', false],
    ['acme/web', 'acme/api', false],
    ['acme/web', 'acme/webx', false],
    ['acme/web', 'tools', false],
    ['acme/web', 'personal', false],
    ['acme', 'acme/web/ui', true],
    ['acme/web/ui', 'acme/web', false],
    // A personal task is read by its creator and admins: any scope (access decides the rest).
    ['default', 'personal', true],
    ['default', 'acme', true],
    ['default', 'public', true],
  ])('a task in %s, a skill of %s: %s', (taskNamespace, scope, expected) => {
    expect(readersMayRead(taskNamespace, scoped(scope))).toBe(expected);
  });

  // Both binding kinds over both namespaces of task, decided before access: the creator
  // (Developer in acme/web, Reporter in tools; or Reporter in acme) reads every skill bound here.
  const acmeReporter = { ...task('acme/web'), creator: user(1, { acme: 'Reporter' }) };
  it.each<[string, BindingFacts[], BindingTask, string[]]>([
    [
      "user binding, creator's personal skill, group task",
      [bind('notes', 1, { scope: 'personal' })],
      task('acme/web'),
      [],
    ],
    [
      "user binding, creator's personal skill, personal task",
      [bind('notes', 1, { scope: 'personal' })],
      task('default'),
      ['notes<-u1'],
    ],
    ["user binding, the task group's skill", [bind('lint', 1, { scope: 'acme/web' })], task('acme/web'), ['lint<-u1']],
    ["user binding, a child group's skill", [bind('ui', 1, { scope: 'acme/web/ui' })], task('acme/web'), ['ui<-u1']],
    ["user binding, the parent group's skill", [bind('deep', 1, { scope: 'acme' })], acmeReporter, []],
    ["user binding, another group's skill", [bind('tool', 1, { scope: 'tools' })], task('acme/web'), []],
    [
      "user binding, another group's skill, personal task",
      [bind('tool', 1, { scope: 'tools' })],
      task('default'),
      ['tool<-u1'],
    ],
    ['user binding, a public skill, group task', [bind('pdf', 1)], task('acme/web'), ['pdf<-u1']],
    [
      'user binding, personal skill, the team gone: the task keeps its group',
      [bind('notes', 1, { scope: 'personal' })],
      task(null),
      [],
    ],
    [
      "group binding, the team group's own skill",
      [bind('lint', 'acme/web', { scope: 'acme/web' })],
      task('acme/web'),
      ['lint<-acme/web'],
    ],
    ["group binding, an ancestor's own skill", [bind('deep', 'acme', { scope: 'acme' })], acmeReporter, []],
    ["group binding, an ancestor's public skill", [bind('pdf', 'acme')], acmeReporter, ['pdf<-acme']],
    [
      'a binding outside the rule leaves its name to the next binding',
      [bind('notes', 1, { scope: 'personal', preload: true }), bind('notes', 'acme/web', { preload: true })],
      task('acme/web'),
      ['notes<-acme/web+'],
    ],
  ])('%s', (_, bindings, t, expected) => {
    expect(decided(bindings, t)).toEqual(expected);
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
    const group = bind('notes', 1, { scope: 'acme/web', skillId: 20 });
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

describe("bindings in a task's resolution", () => {
  // Task 12 of team 7 in `acme/web`, created by user 1 (Developer in acme/web, Reporter in tools).
  // Skills: personal `mine` (user 1), `theirs` (user 2), group `lint` (acme/web, 3 versions),
  // group `deep` (acme), public `pdf` and `fmt`.
  const world = [
    skill(10, 'mine', { owner: 1 }),
    skill(11, 'theirs', { owner: 2 }),
    skill(20, 'lint', { ns: 'acme/web' }, { versions: 3 }),
    skill(21, 'deep', { ns: 'acme' }),
    skill(30, 'pdf', { isPublic: true }),
    skill(31, 'fmt', { isPublic: true }),
  ];
  const scopes: Record<number, Scope> = { 10: 'personal', 11: 'personal', 20: 'acme/web', 21: 'acme' };
  const identities = { 1: creator, 2: user(2), 5: user(5, { acme: 'Reporter' }) };

  function b(
    skillId: number,
    target: string | number,
    opts: { preload?: boolean; exceptions?: BindingException[] } = {},
  ): BindingFacts {
    const name = world.find((s) => s.id === skillId)!.name;
    return bind(name, target, { skillId, scope: scopes[skillId] ?? 'public', ...opts });
  }

  const ghost = (skills: string[], preload: string[] = []): GhostFacts => ({
    ownerUserId: 1,
    skills,
    preloadSkills: preload,
    skillRefs: {},
    preloadSkillRefs: {},
  });
  const sel = (name: string, namespace = 'default', is_public = true): ExplicitSelection => ({
    name,
    namespace,
    is_public,
  });

  function facts(bindings: BindingFacts[], overrides: Partial<ResolutionFacts> = {}): ResolutionFacts {
    return {
      taskId: 12,
      taskCreatorUserId: 1,
      teamId: 7,
      teamNamespace: 'acme/web',
      taskNamespace: 'acme/web',
      ghosts: [],
      subscription: null,
      labels: {},
      message: null,
      identities,
      skills: world,
      bindings,
      ...overrides,
    };
  }

  /** Names, the skill id (and version) behind each ref, failures. */
  function summary(r: Resolution) {
    const ids = (refs: Resolution['skill_refs']) =>
      Object.fromEntries(Object.entries(refs).map(([name, ref]) => [name, `${ref.skill_id}v${ref.version}`]));
    return {
      skills: r.skills,
      preload: r.preload_skills,
      refs: ids(r.skill_refs),
      preloadRefs: ids(r.preload_skill_refs),
      unresolved: r.unresolved.map((u) => `${u.name}:${u.source}:${u.reason}`),
      selected: r.user_selected_skills,
    };
  }
  type Summary = ReturnType<typeof summary>;
  const none: Summary = { skills: [], preload: [], refs: {}, preloadRefs: {}, unresolved: [], selected: [] };

  it.each<[string, ResolutionFacts, Partial<Summary>]>([
    ['no bindings: nothing', facts([]), {}],
    [
      "the creator's binding enters skills, at the latest version",
      facts([b(20, 1)]),
      { skills: ['lint'], refs: { lint: '20v3' } },
    ],
    [
      'a preloading binding enters both maps',
      facts([b(30, 1, { preload: true })]),
      { skills: ['pdf'], preload: ['pdf'], refs: { pdf: '30v1' }, preloadRefs: { pdf: '30v1' } },
    ],
    ["another user's binding: nothing", facts([b(11, 2)]), {}],
    [
      "the team group's binding",
      facts([b(20, 'acme/web', { preload: true })]),
      { skills: ['lint'], preload: ['lint'], refs: { lint: '20v3' }, preloadRefs: { lint: '20v3' } },
    ],
    ["an ancestor's binding needs a role there: none for a member of acme/web alone", facts([b(21, 'acme')]), {}],
    [
      "an ancestor's binding of its own skill, even for a member of the ancestor: readers of acme/web alone could not read it",
      facts([b(21, 'acme')], { taskCreatorUserId: 5 }),
      {},
    ],
    [
      "an ancestor's binding of a public skill, for a member of the ancestor",
      facts([b(30, 'acme', { preload: true })], { taskCreatorUserId: 5 }),
      { skills: ['pdf'], preload: ['pdf'], refs: { pdf: '30v1' }, preloadRefs: { pdf: '30v1' } },
    ],
    [
      'a personal team: user bindings only',
      facts([b(30, 1), b(20, 'acme/web')], { teamNamespace: 'default' }),
      { skills: ['pdf'], refs: { pdf: '30v1' } },
    ],
    [
      'a gone team: user bindings only',
      facts([b(30, 1), b(20, 'acme/web')], { teamNamespace: null }),
      { skills: ['pdf'], refs: { pdf: '30v1' } },
    ],
    [
      "the user's binding decides over the group's, preload and all",
      facts([b(30, 'acme/web', { preload: true }), b(30, 1)]),
      { skills: ['pdf'], refs: { pdf: '30v1' } },
    ],
    [
      'a ghost names it in skills: the binding decides nothing, not even preload',
      facts([b(30, 1, { preload: true })], { ghosts: [ghost(['pdf'])] }),
      { skills: ['pdf'], refs: { pdf: '30v1' } },
    ],
    [
      'a ghost names it, unresolved: the ghost decides',
      facts([b(10, 1)], {
        ghosts: [ghost(['mine'])],
        identities: { ...identities, 1: user(1) },
        skills: world.slice(1),
      }),
      { skills: ['mine'], unresolved: ['mine:ghost:NOT_FOUND'] },
    ],
    [
      'the task names it and fails: the task decides, the binding does not step in',
      facts([b(30, 1)], { labels: { requestedSkillRefs: JSON.stringify([sel('pdf', 'acme/other', false)]) } }),
      { skills: ['pdf'], preload: ['pdf'], unresolved: ['pdf:task:FORBIDDEN'], selected: ['pdf'] },
    ],
    [
      'a subscription names it: the subscription decides',
      facts([b(30, 1)], { subscription: { ownerUserId: 1, skillRefs: [sel('pdf')] } }),
      { skills: ['pdf'], preload: ['pdf'], refs: { pdf: '30v1' }, preloadRefs: { pdf: '30v1' } },
    ],
    [
      "a message names it: the message decides; the binding's other names stay unselected",
      facts([b(30, 1), b(31, 1)], { message: { callerUserId: 1, selections: [sel('pdf')] } }),
      {
        skills: ['fmt', 'pdf'],
        preload: ['pdf'],
        refs: { fmt: '31v1', pdf: '30v1' },
        preloadRefs: { pdf: '30v1' },
        selected: ['pdf'],
      },
    ],
    [
      'a mode exception skips the binding: the next binding of the name decides',
      facts([b(30, 1, { exceptions: [{ type: 'mode', value: 'chat' }] }), b(30, 'acme/web', { preload: true })], {
        labels: { taskType: 'chat' },
      }),
      { skills: ['pdf'], preload: ['pdf'], refs: { pdf: '30v1' }, preloadRefs: { pdf: '30v1' } },
    ],
    [
      'a mode exception matches the type label when taskType is absent',
      facts([b(30, 1, { exceptions: [{ type: 'mode', value: 'chat' }] })], { labels: { type: 'chat' } }),
      {},
    ],
    [
      'a team exception on another team: the binding applies',
      facts([b(30, 1, { exceptions: [{ type: 'team', value: '8' }] })]),
      { skills: ['pdf'], refs: { pdf: '30v1' } },
    ],
    ['a team exception on this team: nothing', facts([b(30, 1, { exceptions: [{ type: 'team', value: '7' }] })]), {}],
    [
      "any role in the group reads the group's bound skill",
      facts([b(20, 'acme/web', { preload: true })], {
        identities: { ...identities, 1: user(1, { 'acme/web': 'Reporter' }) },
      }),
      { skills: ['lint'], preload: ['lint'], refs: { lint: '20v3' }, preloadRefs: { lint: '20v3' } },
    ],
    [
      "the creator's binding of a group skill, the role since lost: unresolved FORBIDDEN, from the binding",
      facts([b(20, 1, { preload: true }), b(30, 1)], { identities: { ...identities, 1: user(1) } }),
      { skills: ['lint', 'pdf'], preload: ['lint'], refs: { pdf: '30v1' }, unresolved: ['lint:binding:FORBIDDEN'] },
    ],
    [
      "in a personal task, a personal skill of another user bound to the creator (it can't be read): FORBIDDEN",
      facts([b(11, 1, { preload: true })], { teamNamespace: 'default', taskNamespace: 'default' }),
      { skills: ['theirs'], preload: ['theirs'], unresolved: ['theirs:binding:FORBIDDEN'] },
    ],
    [
      "the creator's personal skill in a group task: no source at all, not unresolved",
      facts([b(10, 1, { preload: true })]),
      {},
    ],
    [
      "the creator's personal skill in their personal task",
      facts([b(10, 1, { preload: true })], { teamNamespace: 'default', taskNamespace: 'default' }),
      { skills: ['mine'], preload: ['mine'], refs: { mine: '10v1' }, preloadRefs: { mine: '10v1' } },
    ],
    [
      "the creator's personal skill, the team gone: the task's readers are still acme/web's",
      facts([b(10, 1), b(30, 1)], { teamNamespace: null }),
      { skills: ['pdf'], refs: { pdf: '30v1' } },
    ],
    [
      "the creator's binding of an ancestor's skill in a child group's task: nothing",
      facts([b(21, 5)], { taskCreatorUserId: 5 }),
      {},
    ],
    [
      'a group binding the creator lost the role to read: no longer applies at all',
      facts([b(20, 'acme/web')], { identities: { ...identities, 1: user(1, { tools: 'Owner' }) } }),
      {},
    ],
    [
      'a binding whose skill is not loaded: NOT_FOUND',
      facts([bind('ghosted', 1, { skillId: 999 })]),
      { skills: ['ghosted'], unresolved: ['ghosted:binding:NOT_FOUND'] },
    ],
  ])('%s', (_, f, expected) => {
    expect(summary(resolveTask(f))).toEqual({ ...none, ...expected });
  });

  it('the answer is the same with the team entry (ghosts decided once) as without it', () => {
    const f = facts([b(30, 1, { preload: true }), b(31, 'acme/web'), b(20, 1)], { ghosts: [ghost(['fmt'], ['lint'])] });
    const ghosts = decideGhosts(f);
    expect(resolveTask(f, ghosts)).toEqual(resolveTask(f));
    expect(summary(resolveTask(f))).toEqual({
      ...none,
      skills: ['fmt', 'lint', 'pdf'],
      preload: ['lint', 'pdf'],
      refs: { fmt: '31v1', lint: '20v3', pdf: '30v1' },
      preloadRefs: { lint: '20v3', pdf: '30v1' },
    });
  });

  it('a binding changes the fingerprint; an excepted one does not', () => {
    const plain = resolveTask(facts([])).fingerprint;
    expect(resolveTask(facts([b(30, 1)])).fingerprint).not.toBe(plain);
    expect(resolveTask(facts([b(30, 1, { exceptions: [{ type: 'team', value: '7' }] })])).fingerprint).toBe(plain);
  });
});
