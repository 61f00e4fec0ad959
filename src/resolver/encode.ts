// How a resolution is written: the member texts of resolved names, the refs records and name lists
// of an answer with their canonical texts, and its fingerprint (the SHA-256 of the hashed fields as
// RFC 8785 canonical JSON). No rule is decided here: resolve-task.ts decides, this file writes.
import { canonicalDigest, canonicalJson, inOnePiece } from '../package/canonical-json';
import { RefOutcome, Resolution, SkillRef, Unresolved } from './resolution.types';

/** A resolved name as a member of a refs record (`"name":{...}`), canonical and as JSON.stringify writes it. */
export interface MemberTexts {
  readonly canonical: string;
  readonly json: string;
}

/** Writes the member texts of one resolved name. */
export type MemberWriter = (name: string, ref: SkillRef) => MemberTexts;

/** The member texts of `name` resolved to `ref`, for one answer. */
export const memberTexts: MemberWriter = (name, ref) => {
  const key = `${JSON.stringify(name)}:`;
  return { canonical: key + canonicalJson(ref), json: key + JSON.stringify(ref) };
};

/** The same texts copied in one piece, for decisions that many answers share (a team's ghosts). */
export const sharedMemberTexts: MemberWriter = (name, ref) => {
  const texts = memberTexts(name, ref);
  return { canonical: inOnePiece(texts.canonical), json: inOnePiece(texts.json) };
};

/** One map of an answer in canonical name order: what each name resolved to, and its member texts. */
export interface WrittenMap {
  readonly names: readonly string[];
  readonly decisions: ReadonlyArray<{ readonly outcome: RefOutcome }>;
  readonly texts: ReadonlyArray<MemberTexts | undefined>;
}

/** What an answer says before it is hashed: every field the fingerprint covers. */
export interface AnswerParts {
  readonly taskId: number;
  readonly teamId: number;
  readonly teamNamespace: string;
  readonly skills: WrittenMap;
  readonly preload: WrittenMap;
  readonly unresolved: Unresolved[];
}

/**
 * The JSON texts of the parts of answers `encodeAnswer` made (see resolutionJson): a memo keyed by
 * objects that are never changed once made, so `resolutionJson(v)` is always `JSON.stringify(v)`.
 */
const partTexts = new WeakMap<object, string>();

/** True for a name JSON.stringify may not write in insertion order: it lists array indices (`42`) first. */
function mayBeArrayIndex(name: string): boolean {
  const first = name.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && /^[0-9]+$/.test(name);
}

/** The resolved names' refs, and their canonical text. */
function refsOf(map: WrittenMap): { record: Record<string, SkillRef>; canonical: string } {
  const record: Record<string, SkillRef> = {};
  let canonical = '';
  let json = '';
  let insertionOrder = true;
  for (let i = 0; i < map.names.length; i++) {
    const { outcome } = map.decisions[i];
    const texts = map.texts[i];
    if (!outcome.ok || !texts) continue;
    const name = map.names[i];
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

/** A list of names, written once: as JSON and canonically it is the same text. */
function namesOf(map: WrittenMap): { names: string[]; text: string } {
  const names = [...map.names];
  const text = JSON.stringify(names);
  partTexts.set(names, text);
  return { names, text };
}

/**
 * Every hashed field of the answer, in the answer's order, and its fingerprint: the canonical
 * digest of those fields, with the texts of the parts already written used as they are.
 */
export function encodeAnswer(parts: AnswerParts): Omit<Resolution, 'user_selected_skills'> {
  const skills = namesOf(parts.skills);
  const preloadSkills = namesOf(parts.preload);
  const skillRefs = refsOf(parts.skills);
  const preloadRefs = refsOf(parts.preload);
  const fields = {
    task_id: parts.taskId,
    team_id: parts.teamId,
    team_namespace: parts.teamNamespace,
    skills: skills.names,
    preload_skills: preloadSkills.names,
    skill_refs: skillRefs.record,
    preload_skill_refs: preloadRefs.record,
    unresolved: parts.unresolved,
  };
  const known = new Map<object, string>([
    [skills.names, skills.text],
    [preloadSkills.names, preloadSkills.text],
    [skillRefs.record, skillRefs.canonical],
    [preloadRefs.record, preloadRefs.canonical],
  ]);
  return { ...fields, fingerprint: canonicalDigest(fields, known) };
}

/**
 * `JSON.stringify(value)` for a part of a resolution (a refs record, a list of names): written as
 * the answer was made when encodeAnswer made it (a part is never changed once made).
 */
export function resolutionJson(value: unknown): string {
  return (typeof value === 'object' && value !== null && partTexts.get(value)) || JSON.stringify(value);
}
