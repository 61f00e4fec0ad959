// CONTRACT §5.1-§5.4: merges a task's sources into exact refs. Every precedence rule is here.
import { canonicalDigest, canonicalJson, inOnePiece } from '../package/canonical-json';
import { plainIdentity } from './access';
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
  SkillRef,
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

/** A resolved name as a member of a refs record (`"name":{...}`), canonical and as JSON.stringify writes it. */
interface MemberTexts {
  readonly canonical: string;
  readonly json: string;
}

/**
 * One map's decisions in canonical name order (UTF-16 code units, the order RFC 8785 gives keys),
 * with the member texts of those that resolved.
 */
interface Ordered {
  readonly names: readonly string[];
  readonly decisions: readonly Decision[];
  readonly texts: ReadonlyArray<MemberTexts | undefined>;
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
 * `kept`: the decisions serve many tasks (a team's entry), so their texts are copied in one piece.
 */
export function decideGhosts(
  facts: GhostDecisionFacts,
  catalog: SkillCatalog = new SkillCatalog(facts.skills),
  kept = true,
): GhostDecisions {
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
  const skillsOrder = ordered(skills, kept);
  const unresolved: Unresolved[] = [];
  skillsOrder.names.forEach((name, i) => {
    const failed = unresolvedOf(name, skillsOrder.decisions[i], preload.get(name));
    if (failed) unresolved.push(failed);
  });
  return { skills: skillsOrder, preload: ordered(preload, kept), unresolved };
}

/** The skills-map decision speaks first; a preload failure shows only when that one resolved. */
function unresolvedOf(name: string, inSkills: Decision, inPreload: Decision | undefined): Unresolved | undefined {
  const failed = [inSkills, inPreload].find((d) => d !== undefined && !d.outcome.ok);
  return failed && !failed.outcome.ok ? { name, source: failed.source, reason: failed.outcome.reason } : undefined;
}

/** One map's decisions in name order, each resolved name's texts written once (in one piece when `kept`). */
function ordered(decisions: Decisions, kept: boolean): Ordered {
  const names = sorted(decisions.keys());
  const inOrder = names.map((name) => decisions.get(name)!);
  const texts = names.map((name, i) => {
    const texts = memberTexts(name, inOrder[i]);
    return texts && kept ? { canonical: inOnePiece(texts.canonical), json: inOnePiece(texts.json) } : texts;
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

  const decided = ghosts ?? decideGhosts(facts, catalog(), false);
  // Above the ghosts each source enters both maps and overrides whatever a lower source decided,
  // whether its own selection resolves or not.
  const above: Decisions = new Map();
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

  const { fields, known } = output(facts, namespace, decided, above);
  const userSelected = [...selectedNames(taskSelections), ...(facts.message?.selections.map((s) => s.name) ?? [])];
  return {
    ...fields,
    fingerprint: canonicalDigest(fields, known),
    user_selected_skills: [...new Set(userSelected)],
  };

  function decideAbove(source: SelectionSource, entries: Entry[]): void {
    // Within one source a repeated name does not override its first entry.
    for (const entry of firstOfEachName(entries, (e) => e.name)) {
      above.set(entry.name, { source, outcome: entry.resolve() });
    }
  }

  function explicit(actor: Identity, selection: ExplicitSelection, version?: number): Entry {
    const { name, namespace: selectionNamespace, is_public, malformed } = selection;
    return {
      name,
      resolve: () =>
        resolveExplicit(catalog(), actor, { name, namespace: selectionNamespace, is_public, version, malformed }),
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

function memberTexts(name: string, decision: Decision): MemberTexts | undefined {
  if (!decision.outcome.ok) return undefined;
  const key = `${JSON.stringify(name)}:`;
  return { canonical: key + canonicalJson(decision.outcome.ref), json: key + JSON.stringify(decision.outcome.ref) };
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

/** The JSON texts of the parts of answers resolveTask made (see resolutionJson). */
const partTexts = new WeakMap<object, string>();

/** True for a name JSON.stringify may not write in insertion order: it lists array indices (`42`) first. */
function mayBeArrayIndex(name: string): boolean {
  const first = name.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && /^[0-9]+$/.test(name);
}

/** The resolved names' refs, and their canonical text. */
function refsOf(order: Ordered): { record: Record<string, SkillRef>; canonical: string } {
  const record: Record<string, SkillRef> = {};
  let canonical = '';
  let json = '';
  let insertionOrder = true;
  for (let i = 0; i < order.names.length; i++) {
    const { outcome } = order.decisions[i];
    const texts = order.texts[i];
    if (!outcome.ok || !texts) continue;
    const name = order.names[i];
    // An own property whatever the name: `__proto__` would set the prototype.
    if (name === '__proto__') {
      Object.defineProperty(record, name, { value: outcome.ref, enumerable: true, writable: true, configurable: true });
    } else {
      record[name] = outcome.ref;
    }
    const comma = canonical === '' ? '' : ',';
    canonical += comma + texts.canonical;
    json += comma + texts.json;
    if (insertionOrder && mayBeArrayIndex(name)) insertionOrder = false;
  }
  if (insertionOrder) partTexts.set(record, `{${json}}`);
  return { record, canonical: `{${canonical}}` };
}

/**
 * `JSON.stringify(value)` for a part of a resolution (a refs record, a list of names): written as
 * the answer was made when resolveTask made it (a part is never changed once made).
 */
export function resolutionJson(value: unknown): string {
  return (typeof value === 'object' && value !== null && partTexts.get(value)) || JSON.stringify(value);
}

/** A list of names, written once: as JSON and canonically it is the same text. */
function namesOf(order: Ordered): { names: string[]; text: string } {
  const names = [...order.names];
  const text = JSON.stringify(names);
  partTexts.set(names, text);
  return { names, text };
}

/**
 * Every hashed field of the answer (CONTRACT §5.3): exactly what the fingerprint covers; and the
 * canonical texts of its parts, for the fingerprint.
 */
function output(facts: ResolutionFacts, namespace: string, ghosts: GhostDecisions, decidedAbove: Decisions) {
  // Each name decided above the ghosts enters both maps with the same decision.
  const above = ordered(decidedAbove, false);
  const skillsOrder = withAbove(ghosts.skills, above);
  const preloadOrder = withAbove(ghosts.preload, above);
  const skills = namesOf(skillsOrder);
  const preloadSkills = namesOf(preloadOrder);
  const skillRefs = refsOf(skillsOrder);
  const preloadRefs = refsOf(preloadOrder);
  const fields = {
    task_id: facts.taskId,
    team_id: facts.teamId,
    team_namespace: namespace,
    skills: skills.names,
    preload_skills: preloadSkills.names,
    skill_refs: skillRefs.record,
    preload_skill_refs: preloadRefs.record,
    unresolved: unresolvedWith(ghosts.unresolved, above),
  };
  const known = new Map<object, string>([
    [skills.names, skills.text],
    [preloadSkills.names, preloadSkills.text],
    [skillRefs.record, skillRefs.canonical],
    [preloadRefs.record, preloadRefs.canonical],
  ]);
  return { fields, known };
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
