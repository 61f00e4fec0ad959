// CONTRACT §5.1-§5.4: merges a task's sources into exact refs. Every precedence rule is here.
import { canonicalDigest, canonicalJson, inOnePiece } from '../common/canonical-json';
import { plainIdentity } from './access';
import { checkStoredRef, lookupByName, resolveExplicit } from './lookup';
import { ownValue } from './own-value';
import {
  DEFAULT_NAMESPACE,
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

/**
 * What a team's ghosts decide, before any source above them: the same for every task of the team
 * (their owners act for them, in the team's namespace), so it may be computed once and shared.
 */
export interface GhostDecisions {
  readonly skills: ReadonlyMap<string, Decision>;
  readonly preload: ReadonlyMap<string, Decision>;
}

/** All the ghosts' decisions depend on: `skills` needs hold only what the ghosts reach. */
export type GhostDecisionFacts = Pick<ResolutionFacts, 'teamNamespace' | 'ghosts' | 'identities' | 'skills'>;

/** One name of a source above the ghosts, resolved lazily so an overridden entry costs nothing. */
interface Entry {
  name: string;
  resolve: () => RefOutcome;
}

/** Among ghosts the first one (member order) that puts a name in a map decides it for that map. */
export function decideGhosts(
  facts: GhostDecisionFacts,
  catalog: SkillCatalog = new SkillCatalog(facts.skills),
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
  return { skills, preload };
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

  const decided = ghosts ?? decideGhosts(facts, catalog());
  const skillsMap: Decisions = new Map(decided.skills);
  const preloadMap: Decisions = new Map(decided.preload);

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

  const { fields, known } = output(facts, namespace, skillsMap, preloadMap);
  const userSelected = [...selectedNames(taskSelections), ...(facts.message?.selections.map((s) => s.name) ?? [])];
  return {
    ...fields,
    fingerprint: canonicalDigest(fields, known),
    user_selected_skills: [...new Set(userSelected)],
  };

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

/** A resolved name as a member of a refs record (`"name":{...}`), canonical and as JSON.stringify writes it. */
interface MemberTexts {
  readonly canonical: string;
  readonly json: string;
}

/**
 * Written once per decision: a decision is made for one name and never changed, and a team's
 * ghosts' decisions serve every task of the team (see decideGhosts).
 */
const memberTexts = new WeakMap<Decision, MemberTexts>();

/** The JSON texts of the refs records resolveTask made (see refsRecordJson). */
const recordTexts = new WeakMap<Record<string, SkillRef>, string>();

/** True for a name JSON.stringify may not write in insertion order: it lists array indices (`42`) first. */
function mayBeArrayIndex(name: string): boolean {
  const first = name.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && /^[0-9]+$/.test(name);
}

function memberTextsOf(name: string, decision: Decision, ref: SkillRef): MemberTexts {
  let texts = memberTexts.get(decision);
  if (!texts) {
    const key = `${JSON.stringify(name)}:`;
    const canonical = key + canonicalJson(ref);
    const json = key + JSON.stringify(ref);
    // A ghost's decision serves every task of its team: its texts are worth keeping in one piece.
    texts =
      decision.source === 'ghost' ? { canonical: inOnePiece(canonical), json: inOnePiece(json) } : { canonical, json };
    memberTexts.set(decision, texts);
  }
  return texts;
}

/** The resolved names' refs, and their canonical text (names are given in canonical order). */
function refsOf(names: string[], decisions: Decisions): { record: Record<string, SkillRef>; canonical: string } {
  const record: Record<string, SkillRef> = {};
  let canonical = '';
  let json = '';
  let insertionOrder = true;
  for (const name of names) {
    const decision = decisions.get(name);
    if (!decision?.outcome.ok) continue;
    const { ref } = decision.outcome;
    // An own property whatever the name: `__proto__` would set the prototype.
    if (name === '__proto__')
      Object.defineProperty(record, name, { value: ref, enumerable: true, writable: true, configurable: true });
    else record[name] = ref;
    const texts = memberTextsOf(name, decision, ref);
    const comma = canonical === '' ? '' : ',';
    canonical += comma + texts.canonical;
    json += comma + texts.json;
    if (insertionOrder && mayBeArrayIndex(name)) insertionOrder = false;
  }
  if (insertionOrder) recordTexts.set(record, `{${json}}`);
  return { record, canonical: `{${canonical}}` };
}

/**
 * `JSON.stringify(record)` for a refs record of a resolution: written as the resolution was made
 * when resolveTask made it (a record is never changed once made).
 */
export function refsRecordJson(record: Record<string, SkillRef>): string {
  return recordTexts.get(record) ?? JSON.stringify(record);
}

/**
 * Every hashed field of the answer (CONTRACT §5.3): exactly what the fingerprint covers; and the
 * canonical texts of its refs records, for the fingerprint.
 */
function output(facts: ResolutionFacts, namespace: string, skillsMap: Decisions, preloadMap: Decisions) {
  const skills = sorted([...skillsMap.keys(), ...preloadMap.keys()]);
  const preloadSkills = sorted(preloadMap.keys());
  const unresolved: Unresolved[] = [];
  for (const name of skills) {
    // The skills-map decision speaks first; a preload failure shows only when that one resolved.
    const failed = [skillsMap.get(name), preloadMap.get(name)].find((d) => d !== undefined && !d.outcome.ok);
    if (failed && !failed.outcome.ok) unresolved.push({ name, source: failed.source, reason: failed.outcome.reason });
  }
  const skillRefs = refsOf(skills, skillsMap);
  const preloadRefs = refsOf(preloadSkills, preloadMap);
  const fields = {
    task_id: facts.taskId,
    team_id: facts.teamId,
    team_namespace: namespace,
    skills,
    preload_skills: preloadSkills,
    skill_refs: skillRefs.record,
    preload_skill_refs: preloadRefs.record,
    unresolved,
  };
  const known = new Map<object, string>([
    [skillRefs.record, skillRefs.canonical],
    [preloadRefs.record, preloadRefs.canonical],
  ]);
  return { fields, known };
}
