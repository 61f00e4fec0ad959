// docs/resolution.md: merges a task's sources into exact refs. Every precedence rule is here.
// How the answer is written (its texts and its fingerprint) is encode.ts: this file only decides.
import { plainIdentity } from './access';
import { decideBindings, resolveBinding } from './bindings';
import {
  AnswerParts,
  encodeAnswer,
  MemberTexts,
  MemberWriter,
  memberTexts,
  sharedMemberTexts,
  WrittenMap,
} from './encode';
import { checkStoredRef, lookupByName, resolveExplicit } from './lookup';
import { ownValue } from './own-value';
import { DEFAULT_NAMESPACE } from '../access';
import {
  ExplicitSelection,
  Identity,
  RefOutcome,
  Resolution,
  ResolutionFacts,
  SelectionSource,
  StoredRef,
  Unresolved,
} from './resolution.types';
import { SkillCatalog } from './skill-catalog';
import { firstOfEachName, parseTaskSelections, selectedNames } from './selections';

/** Which source decided a name in one map, and what it resolved to. */
interface Decision {
  readonly source: SelectionSource;
  readonly outcome: RefOutcome;
}

type Decisions = Map<string, Decision>;

/**
 * One map's decisions in canonical name order (UTF-16 code units, the order RFC 8785 gives keys),
 * with the member texts of those that resolved (written by encode.ts).
 */
interface Ordered extends WrittenMap {
  readonly decisions: readonly Decision[];
}

/**
 * What a team's ghosts decide, before any source above them: the same for every task of the team
 * (their owners act for them, in the team's namespace), so it may be computed once and shared.
 * Kept in answer order, with its texts written, so a task's answer only merges its own names in.
 */
export interface GhostDecisions {
  /** The `skills` map: every name a ghost lists or preloads. */
  readonly skills: Ordered;
  readonly preload: Ordered;
  /** What `unresolved` says of the ghosts' names, in name order. */
  readonly unresolved: readonly Unresolved[];
}

/** All the ghosts' decisions depend on: `skills` needs hold only what the ghosts reach. */
export type GhostDecisionFacts = Pick<ResolutionFacts, 'teamNamespace' | 'ghosts' | 'identities' | 'skills'>;

/** One name of a source above the ghosts, resolved lazily so an overridden entry costs nothing. */
interface Entry {
  name: string;
  resolve: () => RefOutcome;
}

/**
 * Among ghosts the first one (member order) that puts a name in a map decides it for that map.
 * The decisions serve many tasks (a team's entry), so their texts are written to be shared.
 */
export function decideGhosts(
  facts: GhostDecisionFacts,
  catalog: SkillCatalog = new SkillCatalog(facts.skills),
): GhostDecisions {
  return decideGhostsWith(facts, catalog, sharedMemberTexts);
}

function decideGhostsWith(facts: GhostDecisionFacts, catalog: SkillCatalog, write: MemberWriter): GhostDecisions {
  // A gone team leaves no namespace: lookups fall back to `default` (personal, then public).
  const namespace = facts.teamNamespace ?? DEFAULT_NAMESPACE;
  const skills: Decisions = new Map();
  const preload: Decisions = new Map();
  for (const ghost of facts.ghosts) {
    const owner = identityOf(facts.identities, ghost.ownerUserId);
    const resolve = (name: string, ref: StoredRef | undefined): RefOutcome =>
      ref ? checkStoredRef(catalog, owner, name, ref) : lookupByName(catalog, owner, namespace, name);
    // Preload names enter `skills` too, even on a ghost saved before that rule was checked.
    for (const name of [...ghost.skills, ...ghost.preloadSkills]) {
      if (!skills.has(name)) {
        skills.set(name, { source: 'ghost', outcome: resolve(name, ownValue(ghost.skillRefs, name)) });
      }
    }
    for (const name of ghost.preloadSkills) {
      if (!preload.has(name)) {
        const ref = ownValue(ghost.preloadSkillRefs, name) ?? ownValue(ghost.skillRefs, name);
        preload.set(name, { source: 'ghost', outcome: resolve(name, ref) });
      }
    }
  }
  const skillsOrder = ordered(skills, write);
  const unresolved: Unresolved[] = [];
  skillsOrder.names.forEach((name, i) => {
    const failed = unresolvedOf(name, skillsOrder.decisions[i], preload.get(name));
    if (failed) unresolved.push(failed);
  });
  return { skills: skillsOrder, preload: ordered(preload, write), unresolved };
}

/** The skills-map decision speaks first; a preload failure shows only when that one resolved. */
function unresolvedOf(name: string, inSkills: Decision, inPreload: Decision | undefined): Unresolved | undefined {
  const failed = [inSkills, inPreload].find((d) => d !== undefined && !d.outcome.ok);
  return failed && !failed.outcome.ok ? { name, source: failed.source, reason: failed.outcome.reason } : undefined;
}

/** One map's decisions in name order, each resolved name's texts written once by `write`. */
function ordered(decisions: Decisions, write: MemberWriter): Ordered {
  const names = sorted(decisions.keys());
  const inOrder = names.map((name) => decisions.get(name)!);
  const texts = names.map((name, i) => {
    const { outcome } = inOrder[i];
    return outcome.ok ? write(name, outcome.ref) : undefined;
  });
  return { names, decisions: inOrder, texts };
}

function identityOf(identities: Record<number, Identity>, userId: number): Identity {
  return ownValue(identities, userId) ?? plainIdentity(userId);
}

/**
 * `ghosts`, when given, must be what decideGhosts answered for these facts (a team's, computed
 * once), and `facts.skills` then need hold only what the sources above the ghosts reach: the
 * answer is the same as without it, byte for byte.
 */
export function resolveTask(facts: ResolutionFacts, ghosts?: GhostDecisions): Resolution {
  let built: SkillCatalog | undefined;
  const catalog = (): SkillCatalog => (built ??= new SkillCatalog(facts.skills));
  // A gone team leaves no namespace: lookups fall back to `default` (personal, then public).
  const namespace = facts.teamNamespace ?? DEFAULT_NAMESPACE;
  const identity = (userId: number): Identity => identityOf(facts.identities, userId);

  const decided = ghosts ?? decideGhostsWith(facts, catalog(), memberTexts);
  // Above the ghosts each source enters both maps and overrides whatever a lower source decided,
  // whether its own selection resolves or not.
  const above: Decisions = new Map();
  if (facts.subscription) {
    const owner = identity(facts.subscription.ownerUserId);
    decideAbove(
      'subscription',
      facts.subscription.skillRefs.map((s) => explicit(owner, s, s.version, s.tag)),
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

  const lower = withBindings(decided, decideBound(creator));
  const answer = encodeAnswer(output(facts, namespace, lower, above));
  const userSelected = [...selectedNames(taskSelections), ...(facts.message?.selections.map((s) => s.name) ?? [])];
  return { ...answer, user_selected_skills: [...new Set(userSelected)] };

  /** The bindings below every other source: each decides only a name no other source names. */
  function decideBound(actor: Identity): { skills: Decisions; preload: Decisions } {
    const skills: Decisions = new Map();
    const preload: Decisions = new Map();
    if (!facts.bindings?.length) return { skills, preload };
    const named = new Set([...decided.skills.names, ...above.keys()]);
    const task = {
      creator: actor,
      teamId: facts.teamId,
      teamNamespace: facts.teamNamespace,
      taskNamespace: facts.taskNamespace,
      labels: facts.labels,
    };
    for (const bound of decideBindings(facts.bindings, task, named)) {
      const decision: Decision = { source: 'binding', outcome: resolveBinding(catalog(), actor, bound.binding) };
      skills.set(bound.name, decision);
      if (bound.preload) preload.set(bound.name, decision);
    }
    return { skills, preload };
  }

  function decideAbove(source: SelectionSource, entries: Entry[]): void {
    // Within one source a repeated name does not override its first entry.
    for (const entry of firstOfEachName(entries, (e) => e.name)) {
      above.set(entry.name, { source, outcome: entry.resolve() });
    }
  }

  function explicit(actor: Identity, selection: ExplicitSelection, version?: number, tag?: string): Entry {
    const { name, namespace: selectionNamespace, is_public, malformed } = selection;
    return {
      name,
      resolve: () =>
        resolveExplicit(catalog(), actor, { name, namespace: selectionNamespace, is_public, version, tag, malformed }),
    };
  }

  function byName(actor: Identity, name: string): Entry {
    return { name, resolve: () => lookupByName(catalog(), actor, namespace, name) };
  }
}

/** Plain JS string order (UTF-16 code units), the order RFC 8785 gives object keys. */
function sorted(names: Iterable<string>): string[] {
  // The default sort of strings compares UTF-16 code units.
  return [...new Set(names)].sort();
}

/** `base` with the names decided above the ghosts (`above`) merged in, their decisions winning. */
function withAbove(base: Ordered, above: Ordered): Ordered {
  if (above.names.length === 0) return base;
  const out = { names: [] as string[], decisions: [] as Decision[], texts: [] as Array<MemberTexts | undefined> };
  const push = (from: Ordered, i: number): void => {
    out.names.push(from.names[i]);
    out.decisions.push(from.decisions[i]);
    out.texts.push(from.texts[i]);
  };
  let i = 0;
  for (let k = 0; k < above.names.length; k++) {
    for (; i < base.names.length && base.names[i] < above.names[k]; i++) push(base, i);
    if (i < base.names.length && base.names[i] === above.names[k]) i++;
    push(above, k);
  }
  for (; i < base.names.length; i++) push(base, i);
  return out;
}

/**
 * The ghosts' decisions with the bindings' merged in. No binding decides a name a ghost names, so
 * each list is a merge of two disjoint ones (in name order).
 */
function withBindings(ghosts: GhostDecisions, bound: { skills: Decisions; preload: Decisions }): GhostDecisions {
  if (bound.skills.size === 0) return ghosts;
  const skills = ordered(bound.skills, memberTexts);
  return {
    skills: withAbove(ghosts.skills, skills),
    preload: withAbove(ghosts.preload, ordered(bound.preload, memberTexts)),
    unresolved: unresolvedWith(ghosts.unresolved, skills),
  };
}

/** The answer's parts as the rules decided them, for encode.ts to write and hash. */
function output(
  facts: ResolutionFacts,
  namespace: string,
  ghosts: GhostDecisions,
  decidedAbove: Decisions,
): AnswerParts {
  // Each name decided above the ghosts enters both maps with the same decision.
  const above = ordered(decidedAbove, memberTexts);
  return {
    taskId: facts.taskId,
    teamId: facts.teamId,
    teamNamespace: namespace,
    skills: withAbove(ghosts.skills, above),
    preload: withAbove(ghosts.preload, above),
    unresolved: unresolvedWith(ghosts.unresolved, above),
  };
}

/** The ghosts' failures but for the names decided above them, and those names' own, in name order. */
function unresolvedWith(ghosts: readonly Unresolved[], above: Ordered): Unresolved[] {
  const out: Unresolved[] = [];
  let i = 0;
  for (let k = 0; k < above.names.length; k++) {
    const name = above.names[k];
    for (; i < ghosts.length && ghosts[i].name < name; i++) out.push({ ...ghosts[i] });
    if (i < ghosts.length && ghosts[i].name === name) i++;
    const failed = unresolvedOf(name, above.decisions[k], above.decisions[k]);
    if (failed) out.push(failed);
  }
  for (; i < ghosts.length; i++) out.push({ ...ghosts[i] });
  return out;
}
