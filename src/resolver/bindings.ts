// Skill bindings (automatic skills) as plain rules: which bindings a task gets, in which order,
// and which names they decide. The lowest source of a task's skills: a binding decides a name only
// when no other source names it, and only when every reader of the task may read the bound skill
// (docs/resolution.md#skill-bindings).
import { DEFAULT_NAMESPACE, effectiveRole, namespaceLineage } from '../access';
import { canRead } from './access';
import { refTo } from './lookup';
import type { Identity, RefOutcome } from './resolution.types';
import type { SkillCatalog } from './skill-catalog';
import type { BindingException, BindingFacts, BindingTarget } from './binding.types';
import { BINDING_EXCEPTION_TYPES } from './binding.types';

export * from './binding.types';

export const MAX_BINDINGS_PER_TARGET = 100;
export const MAX_BINDING_EXCEPTIONS = 20;
export const MAX_EXCEPTION_VALUE_CHARS = 128;

/** What of a task the bindings' rules read. */
export interface BindingTask {
  creator: Identity;
  teamId: number;
  /** The team's namespace; null when the team is gone (then only the creator's own bindings apply). */
  teamNamespace: string | null;
  /** The task's own namespace (its team's when created, kept when the team is gone): who reads it. */
  taskNamespace: string;
  labels: Readonly<Record<string, string>>;
}

/** The label an exception of type `mode` is matched against: `taskType`, else `type`. */
export function taskMode(labels: Readonly<Record<string, string>>): string | undefined {
  if (Object.hasOwn(labels, 'taskType')) return labels.taskType;
  return Object.hasOwn(labels, 'type') ? labels.type : undefined;
}

/** True when one of the binding's exceptions matches the task, so the binding is left out. */
export function isExcepted(exceptions: readonly BindingException[], task: BindingTask): boolean {
  const mode = taskMode(task.labels);
  const team = String(task.teamId);
  return exceptions.some((exception) =>
    exception.type === 'mode' ? exception.value === mode : exception.value === team,
  );
}

/**
 * The groups whose bindings a task gets, nearest first: the team's group and each ancestor, each
 * only where the creator holds an effective role (a member of `a/b` alone gets nothing of `a`).
 * A personal team (`default`) or a gone team has none. Admins get no group's bindings by being
 * admins: a binding follows membership.
 */
export function bindingGroups(creator: Identity, teamNamespace: string | null): string[] {
  if (teamNamespace === null || teamNamespace === DEFAULT_NAMESPACE) return [];
  return namespaceLineage(teamNamespace)
    .reverse()
    .filter((group) => effectiveRole(creator.directRoles, group) !== null);
}

/**
 * The readers' rule. A binding is automatic: nobody chose to share the bound skill with the task's
 * readers, and every reader of a task sees its resolved set and may mint a token that downloads
 * it. So a binding is a source for a task only when every reader of the task may read the bound
 * skill's scope: in a task of group `g` (read by roles in `g`, which hold in `g`'s children), a
 * public skill or a skill of `g` or of a group below it; in a personal task (read by its creator
 * and admins), a skill of any scope. Decided on the scope alone, before any access check.
 */
export function readersMayRead(taskNamespace: string, skill: { namespace: string; isPublic: boolean }): boolean {
  if (skill.isPublic || taskNamespace === DEFAULT_NAMESPACE) return true;
  return skill.namespace !== DEFAULT_NAMESPACE && namespaceLineage(skill.namespace).includes(taskNamespace);
}

/** As name lookups rank scopes: personal, group, public. */
function scopeRank(binding: BindingFacts): number {
  if (binding.isPublic) return 2;
  return binding.namespace === DEFAULT_NAMESPACE ? 0 : 1;
}

/**
 * The bindings that apply to the task, in the order they decide: the creator's own, then each
 * binding group's, nearest first; none outside the readers' rule, none excepted. Within one
 * target, a name bound twice (a personal and a public skill of the same name) ranks as a name
 * lookup would: personal, group, public, then skill id.
 */
export function applicableBindings(bindings: readonly BindingFacts[], task: BindingTask): BindingFacts[] {
  const groups = bindingGroups(task.creator, task.teamNamespace);
  const rankOf = (target: BindingTarget): number => {
    if (target.type === 'user') return target.userId === task.creator.userId ? 0 : -1;
    const at = groups.indexOf(target.groupName);
    return at < 0 ? -1 : at + 1;
  };
  return bindings
    .map((binding) => ({ binding, rank: rankOf(binding.target) }))
    .filter(
      ({ binding, rank }) =>
        rank >= 0 && readersMayRead(task.taskNamespace, binding) && !isExcepted(binding.exceptions, task),
    )
    .sort(
      (a, b) => a.rank - b.rank || scopeRank(a.binding) - scopeRank(b.binding) || a.binding.skillId - b.binding.skillId,
    )
    .map(({ binding }) => binding);
}

export interface BoundName {
  name: string;
  binding: BindingFacts;
  /** The deciding binding's `preload`: the name enters `preload_skills` exactly then. */
  preload: boolean;
}

/**
 * The names the bindings decide: the first applicable binding of each name decides it wholly,
 * later ones of that name are ignored, and a name any other source names (in either list) is
 * never theirs. Sorted by name.
 */
export function decideBindings(
  bindings: readonly BindingFacts[],
  task: BindingTask,
  namedByOtherSources: ReadonlySet<string>,
): BoundName[] {
  const decided = new Map<string, BoundName>();
  for (const binding of applicableBindings(bindings, task)) {
    if (namedByOtherSources.has(binding.name) || decided.has(binding.name)) continue;
    decided.set(binding.name, { name: binding.name, binding, preload: binding.preload });
  }
  return [...decided.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The ref of a deciding binding, acting as the task creator: the bound skill at its latest
 * version, FORBIDDEN once the creator may no longer read it (a role lost), NOT_FOUND or DELETED
 * should its row be missing or deleted (deleting a skill removes its bindings).
 */
export function resolveBinding(catalog: SkillCatalog, creator: Identity, binding: BindingFacts): RefOutcome {
  const skill = catalog.byId(binding.skillId);
  if (!skill) return { ok: false, reason: 'NOT_FOUND' };
  if (skill.deleted) return { ok: false, reason: 'DELETED' };
  if (!canRead(creator, skill)) return { ok: false, reason: 'FORBIDDEN' };
  return refTo(skill);
}

export type BindingTargetCheck = 'ok' | 'SCOPE_MISMATCH';

/**
 * A group binds only a skill every member can read: one of its own namespace or a public one.
 * A user binds any skill they may read (the caller checks reading; 404 otherwise).
 */
export function groupBindable(groupName: string, skill: { namespace: string; isPublic: boolean }): BindingTargetCheck {
  return skill.isPublic || skill.namespace === groupName ? 'ok' : 'SCOPE_MISMATCH';
}

/** Every problem of a binding's exceptions, in input order (empty when they are valid). */
export function exceptionProblems(exceptions: readonly BindingException[]): string[] {
  const problems: string[] = [];
  if (exceptions.length > MAX_BINDING_EXCEPTIONS) problems.push(`at most ${MAX_BINDING_EXCEPTIONS} exceptions`);
  exceptions.forEach((exception, i) => {
    if (!(BINDING_EXCEPTION_TYPES as readonly string[]).includes(exception.type)) {
      problems.push(`exceptions[${i}].type must be one of ${BINDING_EXCEPTION_TYPES.join(', ')}`);
    }
    const length = [...exception.value].length;
    if (length < 1 || length > MAX_EXCEPTION_VALUE_CHARS) {
      problems.push(`exceptions[${i}].value must be 1-${MAX_EXCEPTION_VALUE_CHARS} characters`);
    }
  });
  return problems;
}
