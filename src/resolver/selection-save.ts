// The write paths of explicit selections: validating a task's `skill_selection` or a subscription's
// `skill_refs`, persisting a message into task labels, and which selections refer to a skill.
import { canRead } from './access';
import { InvalidName, InvalidReason, sortedInvalid } from './ghost-save';
import { lookupByName, resolveExplicit } from './lookup';
import { DEFAULT_NAMESPACE } from '../access';
import { ExplicitSelection, Identity, SkillFacts } from './resolution.types';
import { SkillCatalog } from './skill-catalog';
import { firstOfEachName, parseTaskSelections } from './selections';

/**
 * Every selection must resolve acting as `actor` (task creator, subscription owner), with the same
 * rules as reads; a `saver` other than the actor (a group Maintainer, an admin) must read the skill
 * too, as for ghosts. Every failure, a pinned version that does not exist included, is NOT_FOUND.
 */
export function invalidSelections(
  catalog: SkillCatalog,
  actor: Identity,
  selections: readonly ExplicitSelection[],
  saver: Identity = actor,
): InvalidName[] {
  const problems = new Map<string, InvalidReason>();
  for (const selection of selections) {
    const outcome = resolveExplicit(catalog, actor, selection);
    if (!outcome.ok || !canRead(saver, outcome.skill)) {
      if (!problems.has(selection.name)) problems.set(selection.name, 'NOT_FOUND');
    }
  }
  return sortedInvalid(problems);
}

/** The explicit selection of the scope `skill` lives in now. */
export function selectionOf(skill: SkillFacts): ExplicitSelection {
  return { name: skill.name, namespace: skill.namespace, is_public: skill.isPublic };
}

export interface PersistedSelections {
  requestedSkillRefs: ExplicitSelection[];
  additionalSkills: string[];
}

/**
 * docs/resolution.md#executionrequest `persist: true`: the task's selections (legacy names become the scopes they resolve
 * to now, acting as `creator` in `namespace`, and names resolving to nothing are dropped), each entry
 * named by the message replaced in place by the message's, then the message's other entries in order.
 * The caller writes both labels and checks their size.
 */
export function mergeMessageSelections(
  catalog: SkillCatalog,
  creator: Identity,
  namespace: string,
  labels: Readonly<Record<string, string>>,
  message: readonly ExplicitSelection[],
): PersistedSelections {
  const current = parseTaskSelections(labels);
  let base: ExplicitSelection[] = [];
  switch (current.kind) {
    case 'refs':
      // A malformed stored entry cannot be written back as a selection.
      base = current.refs.filter((s) => !s.malformed);
      break;
    case 'names':
      for (const name of current.names) {
        const outcome = lookupByName(catalog, creator, namespace, name);
        if (outcome.ok) base.push(selectionOf(outcome.skill));
      }
      break;
    case 'none':
      break;
  }
  // Tasks never pin: a message `version`, if any, is not written.
  const incoming = new Map(
    firstOfEachName(message, (s) => s.name).map((s) => [
      s.name,
      { name: s.name, namespace: s.namespace, is_public: s.is_public },
    ]),
  );
  const merged = firstOfEachName(base, (s) => s.name).map((s) => incoming.get(s.name) ?? s);
  const kept = new Set(merged.map((s) => s.name));
  for (const [name, selection] of incoming) if (!kept.has(name)) merged.push(selection);
  return { requestedSkillRefs: merged, additionalSkills: merged.map((s) => s.name) };
}

/**
 * docs/packages.md#deleting `SKILL_REFERENCED`: a subscription's or a task's selection refers to `skill` by an
 * exact scope match; a `default` selection means its acting user's own personal skill.
 */
export function selectionRefersTo(selection: ExplicitSelection, actingUserId: number, skill: SkillFacts): boolean {
  if (selection.malformed || selection.name !== skill.name) return false;
  if (selection.is_public || skill.isPublic) return selection.is_public && skill.isPublic;
  if (selection.namespace === DEFAULT_NAMESPACE) {
    return skill.namespace === DEFAULT_NAMESPACE && skill.ownerUserId === actingUserId;
  }
  return skill.namespace === selection.namespace;
}
