// CONTRACT §5.1-§5.4: merges a task's sources into exact refs. Every precedence rule is here.
import { canonicalDigest } from '../common/canonical-json';
import { plainIdentity } from './access';
import { checkStoredRef, lookupByName, resolveExplicit } from './lookup';
import { ownValue } from './own-value';
import {
  DEFAULT_NAMESPACE,
  ExplicitSelection,
  GhostFacts,
  Identity,
  RefOutcome,
  Resolution,
  ResolutionFacts,
  SelectionSource,
  SkillRef,
  StoredRef,
  Unresolved,
} from './resolution.types';
import { SkillCatalog } from './skill-catalog';
import { firstOfEachName, parseTaskSelections, selectedNames } from './selections';

/** Which source decided a name in one map, and what it resolved to. */
interface Decision {
  source: SelectionSource;
  outcome: RefOutcome;
}

type Decisions = Map<string, Decision>;

/** One name of a source above the ghosts, resolved lazily so an overridden entry costs nothing. */
interface Entry {
  name: string;
  resolve: () => RefOutcome;
}

export function resolveTask(facts: ResolutionFacts): Resolution {
  const catalog = new SkillCatalog(facts.skills);
  // A gone team leaves no namespace: lookups fall back to `default` (personal, then public).
  const namespace = facts.teamNamespace ?? DEFAULT_NAMESPACE;
  const identity = (userId: number): Identity => ownValue(facts.identities, userId) ?? plainIdentity(userId);

  const skillsMap: Decisions = new Map();
  const preloadMap: Decisions = new Map();

  for (const ghost of facts.ghosts) decideGhost(ghost, identity(ghost.ownerUserId));

  // Above the ghosts each source enters both maps and overrides whatever a lower source decided,
  // whether its own selection resolves or not.
  if (facts.subscription) {
    const owner = identity(facts.subscription.ownerUserId);
    decideAbove(
      'subscription',
      facts.subscription.skillRefs.map((s) => explicit(owner, s, s.version)),
    );
  }
  const taskSelections = parseTaskSelections(facts.labels);
  const creator = identity(facts.taskCreatorUserId);
  switch (taskSelections.kind) {
    case 'refs':
      decideAbove(
        'task',
        taskSelections.refs.map((s) => explicit(creator, s)),
      );
      break;
    case 'names':
      decideAbove(
        'task',
        taskSelections.names.map((name) => byName(creator, name)),
      );
      break;
    case 'none':
      break;
  }
  if (facts.message) {
    const caller = identity(facts.message.callerUserId);
    // Only subscriptions pin: a message selection always follows the latest version.
    decideAbove(
      'message',
      facts.message.selections.map((s) => explicit(caller, s)),
    );
  }

  const fields = output(facts, namespace, skillsMap, preloadMap);
  const userSelected = [...selectedNames(taskSelections), ...(facts.message?.selections.map((s) => s.name) ?? [])];
  return {
    ...fields,
    fingerprint: canonicalDigest(fields),
    user_selected_skills: [...new Set(userSelected)],
  };

  /** Among ghosts the first one (member order) that puts a name in a map decides it for that map. */
  function decideGhost(ghost: GhostFacts, owner: Identity): void {
    const resolve = (name: string, ref: StoredRef | undefined): RefOutcome =>
      ref ? checkStoredRef(catalog, owner, name, ref) : lookupByName(catalog, owner, namespace, name);
    // Preload names enter `skills` too, even on a ghost saved before that rule was checked.
    for (const name of [...ghost.skills, ...ghost.preloadSkills]) {
      if (!skillsMap.has(name)) {
        skillsMap.set(name, { source: 'ghost', outcome: resolve(name, ownValue(ghost.skillRefs, name)) });
      }
    }
    for (const name of ghost.preloadSkills) {
      if (!preloadMap.has(name)) {
        const ref = ownValue(ghost.preloadSkillRefs, name) ?? ownValue(ghost.skillRefs, name);
        preloadMap.set(name, { source: 'ghost', outcome: resolve(name, ref) });
      }
    }
  }

  function decideAbove(source: SelectionSource, entries: Entry[]): void {
    // Within one source a repeated name does not override its first entry.
    for (const entry of firstOfEachName(entries, (e) => e.name)) {
      const decision: Decision = { source, outcome: entry.resolve() };
      skillsMap.set(entry.name, decision);
      preloadMap.set(entry.name, decision);
    }
  }

  function explicit(actor: Identity, selection: ExplicitSelection, version?: number): Entry {
    const { name, namespace: selectionNamespace, is_public, malformed } = selection;
    return {
      name,
      resolve: () =>
        resolveExplicit(catalog, actor, { name, namespace: selectionNamespace, is_public, version, malformed }),
    };
  }

  function byName(actor: Identity, name: string): Entry {
    return { name, resolve: () => lookupByName(catalog, actor, namespace, name) };
  }
}

/** Plain JS string order (UTF-16 code units), the order RFC 8785 gives object keys. */
function sorted(names: Iterable<string>): string[] {
  return [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function refsOf(names: string[], decisions: Decisions): Record<string, SkillRef> {
  const entries: [string, SkillRef][] = [];
  for (const name of names) {
    const outcome = decisions.get(name)?.outcome;
    if (outcome?.ok) entries.push([name, outcome.ref]);
  }
  // fromEntries defines own properties, whatever the name.
  return Object.fromEntries(entries);
}

/** Every hashed field of the answer (CONTRACT §5.3): exactly what the fingerprint covers. */
function output(facts: ResolutionFacts, namespace: string, skillsMap: Decisions, preloadMap: Decisions) {
  const skills = sorted([...skillsMap.keys(), ...preloadMap.keys()]);
  const preloadSkills = sorted(preloadMap.keys());
  const unresolved: Unresolved[] = [];
  for (const name of skills) {
    // The skills-map decision speaks first; a preload failure shows only when that one resolved.
    const failed = [skillsMap.get(name), preloadMap.get(name)].find((d) => d !== undefined && !d.outcome.ok);
    if (failed && !failed.outcome.ok) unresolved.push({ name, source: failed.source, reason: failed.outcome.reason });
  }
  return {
    task_id: facts.taskId,
    team_id: facts.teamId,
    team_namespace: namespace,
    skills,
    preload_skills: preloadSkills,
    skill_refs: refsOf(skills, skillsMap),
    preload_skill_refs: refsOf(preloadSkills, preloadMap),
    unresolved,
  };
}
