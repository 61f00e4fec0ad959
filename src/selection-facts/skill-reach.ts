// Which skills a task's resolution may look at, in two parts: what the team's ghosts reach (the
// same for every task of the team, so it can be kept per team) and what the task adds (its
// subscription, its labels, a message). Pure functions over the loaded facts; the skill query
// (ResolutionFactsRepository.loadSkills) and `reachFilter` below select the same rows.
import { DEFAULT_NAMESPACE, isNamespaceName, isRowNumber, isSkillName } from '../access';
import { ExplicitSelection, parseTaskSelections, pinnedVersion, SkillFacts } from '../resolver';
import type { ReachLookup } from './reach-lookups';
import type { SkillReach, TaskSelectionFacts } from './resolution-facts.repository';

export interface Message {
  callerUserId: number;
  selections: ExplicitSelection[];
}

/**
 * What the ghosts look up: their names in the team's namespace, their owners' personal skills and
 * public ones, and their stored refs by id (with pinned versions).
 */
export function ghostReach(facts: TaskSelectionFacts): SkillReach {
  const names: string[] = [];
  const ids: number[] = [];
  const versions: number[] = [];
  for (const ghost of facts.ghosts) {
    names.push(...ghost.skills, ...ghost.preloadSkills);
    for (const ref of [...Object.values(ghost.skillRefs), ...Object.values(ghost.preloadSkillRefs)]) {
      ids.push(ref.skill_id);
      const pinned = pinnedVersion(ref);
      if (pinned !== undefined) versions.push(pinned);
    }
  }
  return {
    names,
    namespaces: facts.team ? [facts.team.namespace] : [],
    ids,
    versions,
    personalOwners: facts.ghosts.map((g) => g.ownerUserId),
  };
}

/** What the sources above the ghosts (and the bindings below them) look up, for whoever selected them. */
export function taskReach(facts: TaskSelectionFacts, message: Message | null): SkillReach {
  const names: string[] = [];
  const namespaces: string[] = facts.team ? [facts.team.namespace] : [];
  const versions: number[] = [];
  const explicit = (selections: ExplicitSelection[]): void => {
    for (const s of selections) {
      names.push(s.name);
      namespaces.push(s.namespace);
      if (s.version !== undefined) versions.push(s.version);
    }
  };
  if (facts.subscription) explicit(facts.subscription.skillRefs);
  const selections = parseTaskSelections(facts.task.labels);
  if (selections.kind === 'refs') explicit(selections.refs);
  if (selections.kind === 'names') names.push(...selections.names);
  if (message) explicit(message.selections);
  // Bindings reach their skills by id: the resolver decides which apply.
  const ids = facts.bindings.map((b) => b.skillId);
  return { names, namespaces, ids, versions, personalOwners: Object.keys(facts.identities).map(Number) };
}

/**
 * The lookups the resolver makes for the task's own sources, each exactly: an explicit selection
 * in the one scope it names for whoever made it (public; a group; `default`, that person's own), a
 * name of the labels as the creator looks it up (their own, the team's group, public), a binding
 * by id. taskReach names the same skills and more (every name in every scope it holds).
 */
export function taskLookups(facts: TaskSelectionFacts, message: Message | null): ReachLookup[] {
  const lookups: ReachLookup[] = [];
  const explicit = (actor: number, selections: ExplicitSelection[]): void => {
    for (const s of selections) {
      if (s.malformed || !isSkillName(s.name)) continue;
      if (s.is_public) lookups.push({ kind: 'public', name: s.name });
      else if (s.namespace === DEFAULT_NAMESPACE) lookups.push({ kind: 'personal', owner: actor, name: s.name });
      else if (isNamespaceName(s.namespace)) lookups.push({ kind: 'group', group: s.namespace, name: s.name });
    }
  };
  if (facts.subscription) explicit(facts.subscription.ownerUserId, facts.subscription.skillRefs);
  const creator = facts.task.ownerUserId;
  const selections = parseTaskSelections(facts.task.labels);
  if (selections.kind === 'refs') explicit(creator, selections.refs);
  if (selections.kind === 'names') {
    const team = facts.team && facts.team.namespace !== DEFAULT_NAMESPACE ? facts.team.namespace : null;
    for (const name of selections.names.filter(isSkillName)) {
      lookups.push({ kind: 'personal', owner: creator, name }, { kind: 'public', name });
      if (team !== null && isNamespaceName(team)) lookups.push({ kind: 'group', group: team, name });
    }
  }
  if (message) explicit(message.callerUserId, message.selections);
  for (const b of facts.bindings) if (isRowNumber(b.skillId)) lookups.push({ kind: 'id', id: b.skillId });
  return lookups;
}

/** Everything the task's resolution may look at. */
export function reachOf(facts: TaskSelectionFacts, message: Message | null): SkillReach {
  return unionReach(ghostReach(facts), taskReach(facts, message));
}

/** Every skill either reach names (and more: each name in every scope either one names). */
export function unionReach(a: SkillReach, b: SkillReach): SkillReach {
  return {
    names: [...a.names, ...b.names],
    namespaces: [...a.namespaces, ...b.namespaces],
    ids: [...a.ids, ...b.ids],
    versions: [...a.versions, ...b.versions],
    personalOwners: [...a.personalOwners, ...b.personalOwners],
  };
}

/** Nothing to look up: no name and no id. */
export function reachesNothing(reach: SkillReach): boolean {
  return isEmpty(reach.names) && isEmpty(reach.ids);
}

function isEmpty(values: Iterable<unknown>): boolean {
  for (const _ of values) return false;
  return true;
}

/**
 * Which skills the skill query selects for `reach`: by id, or by name as a public skill, a skill
 * of one of the reach's groups, or a personal skill of one of its owners.
 */
export function reachFilter(reach: SkillReach): (skill: SkillFacts) => boolean {
  const ids = new Set(reach.ids);
  const names = new Set(reach.names);
  const groups = new Set([...reach.namespaces].filter((n) => n !== DEFAULT_NAMESPACE && isNamespaceName(n)));
  const owners = new Set(reach.personalOwners);
  return (skill) => {
    if (ids.has(skill.id)) return true;
    if (!names.has(skill.name)) return false;
    if (skill.isPublic) return true;
    if (skill.namespace !== DEFAULT_NAMESPACE) return groups.has(skill.namespace);
    return skill.ownerUserId !== null && owners.has(skill.ownerUserId);
  };
}
