// CONTRACT §7.3: the answer of `POST /api/tasks/{id}/tool-check`, from the task's resolved set.
import { checkCall, visibleTools } from './intersection';
import { CallVerdict, Requires, ToolCall } from './policy.types';
import { shown } from './policy-problems';
import { sortedUnique } from './requires';

/** The longest `call.command` accepted, in UTF-8 bytes. */
export const MAX_COMMAND_BYTES = 16 * 1024;

/** What tool-check needs of one resolved ref (a SkillRef carrying its policy fits as it is). */
export interface PolicyRef {
  skill_id: number;
  version: number;
  allowed_tools: readonly string[] | null;
  requires: Requires;
}

/** The request body, already shape-checked (unknown keys, types) by the HTTP layer. */
export interface ToolCheckRequest {
  /** Names of the task's resolved set; default: the task's preload skills. */
  skills?: readonly string[];
  /** The tools T the bot offers. */
  tools?: readonly string[];
  call?: ToolCall;
}

export interface ToolCheckSkill {
  name: string;
  skill_id: number;
  version: number;
  allowed_tools: string[] | null;
}

export interface ToolCheckAnswer {
  /** The active skills, in name order. */
  skills: ToolCheckSkill[];
  visible_tools: string[] | null;
  /** The union of the active skills' requires. */
  requires: Requires;
  /** Present when the request has a `call`. */
  call?: CallVerdict;
}

/** A request the caller answers with 400 VALIDATION_FAILED. */
export interface ToolCheckRejection {
  code: 'VALIDATION_FAILED';
  message: string;
  details: { unknown_skills: string[] } | { command_bytes: number; max_command_bytes: number };
}

export type ToolCheckOutcome = { ok: true; answer: ToolCheckAnswer } | { ok: false; rejection: ToolCheckRejection };

/**
 * `resolved` maps each resolved name of the task to its ref (a preload ref where the name has one);
 * `preloadSkills` is the task's `preload_skills`, whose unresolved names (no ref) are left out of the
 * default. A name of `request.skills` outside `resolved` is a rejection; repeats count once. The
 * active skills are taken in name order, so "the first restricting skill" (the spelling of
 * `visible_tools` without T) does not depend on the order of the request.
 */
export function toolCheck(
  resolved: Readonly<Record<string, PolicyRef>>,
  preloadSkills: readonly string[],
  request: ToolCheckRequest,
): ToolCheckOutcome {
  const inSet = (name: string): boolean => Object.hasOwn(resolved, name);
  if (request.skills !== undefined) {
    const unknown = sortedUnique(request.skills.filter((name) => !inSet(name)));
    if (unknown.length > 0) {
      const names = unknown.map(shown).join(', ');
      const message = `Not skills of this task's resolved set: ${names}.`;
      return { ok: false, rejection: { code: 'VALIDATION_FAILED', message, details: { unknown_skills: unknown } } };
    }
  }
  if (request.call?.command !== undefined) {
    const bytes = Buffer.byteLength(request.call.command, 'utf8');
    if (bytes > MAX_COMMAND_BYTES) {
      const message = `The command has ${bytes} bytes; at most ${MAX_COMMAND_BYTES} are checked.`;
      const details = { command_bytes: bytes, max_command_bytes: MAX_COMMAND_BYTES };
      return { ok: false, rejection: { code: 'VALIDATION_FAILED', message, details } };
    }
  }

  const names = sortedUnique((request.skills ?? preloadSkills).filter(inSet));
  const active = names.map((name) => ({ name, ref: resolved[name] }));
  const skills = active.map(({ name, ref }) => ({
    name,
    skill_id: ref.skill_id,
    version: ref.version,
    allowed_tools: ref.allowed_tools === null ? null : [...ref.allowed_tools],
  }));
  const answer: ToolCheckAnswer = {
    skills,
    visible_tools: visibleTools(skills, request.tools),
    requires: {
      bins: sortedUnique(active.flatMap(({ ref }) => ref.requires.bins)),
      env: sortedUnique(active.flatMap(({ ref }) => ref.requires.env)),
    },
  };
  if (request.call !== undefined) answer.call = checkCall(skills, request.call, request.tools);
  return { ok: true, answer };
}
