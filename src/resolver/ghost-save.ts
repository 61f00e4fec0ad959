// The ghost rules of docs/api.md#resources: the refs a ghost stores on save, or every name that makes the save invalid.
import { canRead } from './access';
import { checkStoredRef, lookupByName, pinnedVersion } from './lookup';
import { ownValue } from './own-value';
import { Identity, StoredRef } from './resolution.types';
import { SkillCatalog } from './skill-catalog';

/** A ref as a client sends it; a client `content_hash` is ignored. */
export interface SkillRefInput {
  skill_id: number;
  namespace?: string;
  is_public?: boolean;
  version?: number;
  pinned?: boolean;
  /** Follow this tag (docs/resolution.md#version-lifecycle); never together with a pinning version. */
  tag?: string;
  content_hash?: string;
}

export type InvalidReason = 'NOT_FOUND' | 'NOT_IN_SKILLS' | 'SCOPE_MISMATCH';

/** One entry of `details.invalid` in a 400 `SKILL_SELECTION_INVALID`. */
export interface InvalidName {
  name: string;
  reason: InvalidReason;
}

export interface GhostSkillsInput {
  skills: string[];
  preload_skills: string[];
  skill_refs: Record<string, SkillRefInput>;
  preload_skill_refs: Record<string, SkillRefInput>;
}

export interface GhostSaveFacts {
  body: GhostSkillsInput;
  /** The ghost's owner: names without a ref are looked up as them, and every ref acts as them. */
  owner: Identity;
  /** Whoever saves (the owner, a group Maintainer, an admin): must read every ref too. */
  saver: Identity;
  /** The ghost's namespace, where name lookups run. */
  namespace: string;
  catalog: SkillCatalog;
}

export type GhostSaveResult =
  | { ok: true; skillRefs: Record<string, StoredRef>; preloadSkillRefs: Record<string, StoredRef> }
  | { ok: false; invalid: InvalidName[] };

/**
 * Unpinned refs store only `skill_id`, so they keep following the latest version; a ref that
 * follows a tag stores it (and no version), so it keeps following the tag.
 */
export function storedRefOf(skillId: number, ref?: { version?: number; pinned?: boolean; tag?: string }): StoredRef {
  if (ref?.tag !== undefined) return { skill_id: skillId, tag: ref.tag };
  const version = ref ? pinnedVersion(ref) : undefined;
  return version === undefined ? { skill_id: skillId } : { skill_id: skillId, version, pinned: true };
}

/** Code-unit order, one entry per name (the first problem found for it). */
export function sortedInvalid(problems: ReadonlyMap<string, InvalidReason>): InvalidName[] {
  return [...problems.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => ({
      name,
      reason: problems.get(name) as InvalidReason,
    }));
}

/**
 * Every ref must be readable by the owner and the saver (an unknown and an unreadable skill both
 * answer NOT_FOUND); a client ref whose `namespace`/`is_public` is sent must agree with the skill.
 * `skill_refs` gets an entry for every name in `skills` (the client's ref, else a name lookup);
 * `preload_skill_refs` keeps only the client's preload refs, because a preload name without one
 * resolves through its `skill_refs` entry, exactly as the resolver reads it.
 */
export function validateGhostSkills(facts: GhostSaveFacts): GhostSaveResult {
  const { body, owner, saver, namespace, catalog } = facts;
  const problems = new Map<string, InvalidReason>();
  const flag = (name: string, reason: InvalidReason): void => {
    if (!problems.has(name)) problems.set(name, reason);
  };

  // Structure first. A ref-map key that its list does not name is NOT_IN_SKILLS too: `skill_refs`
  // keys must be in `skills`, `preload_skill_refs` keys in `preload_skills`.
  const skills = new Set(body.skills);
  const preload = new Set(body.preload_skills);
  for (const name of body.preload_skills) if (!skills.has(name)) flag(name, 'NOT_IN_SKILLS');
  for (const name of Object.keys(body.skill_refs)) if (!skills.has(name)) flag(name, 'NOT_IN_SKILLS');
  for (const name of Object.keys(body.preload_skill_refs)) if (!preload.has(name)) flag(name, 'NOT_IN_SKILLS');

  const checkGiven = (name: string, given: SkillRefInput): StoredRef | InvalidReason => {
    const outcome = checkStoredRef(catalog, owner, name, given);
    if (!outcome.ok || !canRead(saver, outcome.skill)) return 'NOT_FOUND';
    // Scope agreement is judged only on a readable skill, so a mismatch reveals nothing new.
    const { skill } = outcome;
    if (given.namespace !== undefined && given.namespace !== skill.namespace) return 'SCOPE_MISMATCH';
    if (given.is_public !== undefined && given.is_public !== skill.isPublic) return 'SCOPE_MISMATCH';
    return storedRefOf(skill.id, given);
  };
  const lookUp = (name: string): StoredRef | InvalidReason => {
    const outcome = lookupByName(catalog, owner, namespace, name);
    return outcome.ok && canRead(saver, outcome.skill) ? storedRefOf(outcome.skill.id) : 'NOT_FOUND';
  };

  const skillRefs: [string, StoredRef][] = [];
  for (const name of skills) {
    const given = ownValue(body.skill_refs, name);
    const result = given ? checkGiven(name, given) : lookUp(name);
    if (typeof result === 'string') flag(name, result);
    else skillRefs.push([name, result]);
  }
  const preloadSkillRefs: [string, StoredRef][] = [];
  for (const name of preload) {
    const given = ownValue(body.preload_skill_refs, name);
    if (!given) continue;
    const result = checkGiven(name, given);
    if (typeof result === 'string') flag(name, result);
    else preloadSkillRefs.push([name, result]);
  }

  if (problems.size > 0) return { ok: false, invalid: sortedInvalid(problems) };
  return { ok: true, skillRefs: Object.fromEntries(skillRefs), preloadSkillRefs: Object.fromEntries(preloadSkillRefs) };
}
