// The answer of `POST /api/tasks/{id}/tool-check` (docs/tool-policy.md#tool-check), from the task's
// resolved set.
import {
  CompiledPolicy,
  CompiledSkill,
  DEFAULT_MATCH_BUDGET,
  checkCallSteps,
  compilePolicy,
  finish,
  visibleToolsOf,
} from './intersection';
import { CallVerdict, Requires, ToolCall } from './policy.types';
import { shown } from './policy-problems';
import { sortedUnique } from './requires';

/** Compiling offers to give the event loop back after lists of this many characters. */
const COMPILE_SLICE = 4 * 1024;

/** The longest `call.command` accepted, in UTF-8 bytes. */
export const MAX_COMMAND_BYTES = 16 * 1024;

/** What tool-check needs of one resolved ref (a SkillRef carrying its policy fits as it is). */
export interface PolicyRef {
  skill_id: number;
  version: number;
  /** With the skill and version, names the compiled policy in a cache. */
  content_hash?: string;
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

export interface ToolCheckOptions {
  /** The matching work one call may do across all its active skills (docs/tool-policy.md#budget). */
  matchBudget?: number;
  /** A version's compiled `allowed-tools` (a cache); default: compiled for this check. */
  compile?: (ref: PolicyRef & { allowed_tools: readonly string[] }) => CompiledPolicy;
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
  options: ToolCheckOptions = {},
): ToolCheckOutcome {
  return finish(toolCheckSteps(resolved, preloadSkills, request, options));
}

/** toolCheck as steps: the call check yields between slices of its matching (see checkCallSteps). */
export function* toolCheckSteps(
  resolved: Readonly<Record<string, PolicyRef>>,
  preloadSkills: readonly string[],
  request: ToolCheckRequest,
  options: ToolCheckOptions = {},
): Generator<void, ToolCheckOutcome> {
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
  const compile = options.compile ?? ((ref) => compilePolicy(ref.allowed_tools));
  const compiled: CompiledSkill[] = [];
  let sinceYield = 0;
  for (const { name, ref } of active) {
    if (ref.allowed_tools === null) {
      compiled.push({ name, policy: null });
      continue;
    }
    // Compiling is linear in the list; a version compiled before comes from the cache at once.
    sinceYield += ref.allowed_tools.reduce((sum, entry) => sum + entry.length, 0);
    if (sinceYield >= COMPILE_SLICE) {
      yield;
      sinceYield = 0;
    }
    compiled.push({ name, policy: compile({ ...ref, allowed_tools: ref.allowed_tools }) });
  }
  const answer: ToolCheckAnswer = {
    skills,
    visible_tools: visibleToolsOf(compiled, request.tools),
    requires: {
      bins: sortedUnique(active.flatMap(({ ref }) => ref.requires.bins)),
      env: sortedUnique(active.flatMap(({ ref }) => ref.requires.env)),
    },
  };
  if (request.call !== undefined) {
    yield;
    const budget = options.matchBudget ?? DEFAULT_MATCH_BUDGET;
    answer.call = yield* checkCallSteps(compiled, request.call, request.tools, budget);
  }
  return { ok: true, answer };
}
