// Which tools the active skills leave visible, and whether one call passes all of them
// (docs/tool-policy.md#visibility-and-calls).
import { parseToolEntry } from './allowed-tools';
import { CompiledGlob, GlobText, codePointsOf, compileGlob, globCost, matchGlob } from './glob';
import { sortedUnique } from './requires';
import { readSimpleCommand } from './simple-command';
import { ActiveSkill, CallCode, CallVerdict, ToolCall } from './policy.types';

/**
 * Heads compare ignoring ASCII case only. Heads are ASCII, and a full Unicode fold would let an
 * offered or called name such as "\u212Aill" (KELVIN SIGN) pass for "Kill".
 */
export function foldToolName(name: string): string {
  return name.replace(/[A-Z]/g, (char) => char.toLowerCase());
}

/** What one restricting skill says about one tool (all its entries with that head, any case). */
export interface HeadRule {
  /** The head as the skill first writes it. */
  spelling: string;
  /** An entry without a body: every use of the tool is allowed. */
  bare: boolean;
  /** The glob patterns of its bodies, each once, in the order written (see globsOf). */
  patterns: string[];
  /** Each pattern compiled when a check first needs it (see globAt). */
  compiled: (CompiledGlob | undefined)[];
}

/**
 * The i-th glob of a rule, compiled on first use and kept with the rule: a check that is refused
 * for its budget, or that matches early, compiles only the globs it reached.
 */
export function globAt(rule: HeadRule, i: number): CompiledGlob {
  let glob = rule.compiled[i];
  if (glob === undefined) {
    glob = compileGlob(rule.patterns[i]);
    rule.compiled[i] = glob;
  }
  return glob;
}

/** One version's `allowed-tools` list, read (and its globs compiled as used): it depends only on the version. */
export interface CompiledPolicy {
  /** By folded head. */
  byHead: ReadonlyMap<string, HeadRule>;
}

/** A skill as the check sees it: `null` restricts nothing. */
export interface CompiledSkill {
  name: string;
  policy: CompiledPolicy | null;
}

/** What one glob needing a full scan of a 16 KiB command costs (see globCost). */
const FULL_SCAN_OF_16_KIB = 16 * 1024 + 1;
/** The least budget a deployment may set: 64 skills of 16 patterns, each one scan of 16 KiB. */
export const MIN_MATCH_BUDGET = 64 * 16 * FULL_SCAN_OF_16_KIB;
/**
 * The matching work one call may do across all its active skills, in steps (see globCost): twice
 * the least, so that 64 skills of 16 patterns fit even when every pattern needs a full scan and
 * holds a ":" (which makes it two globs). Up to about 100 ms of matching, in slices.
 */
export const DEFAULT_MATCH_BUDGET = 2 * MIN_MATCH_BUDGET;
export const MAX_MATCH_BUDGET = 2 ** 30;
/**
 * The check offers to give the event loop back after this many steps (well under a millisecond of
 * matching); its caller decides how often to take the offer.
 */
export const MATCH_SLICE = 64 * 1024;
/** What trying one glob counts towards a slice beyond its matching: compiling it, its bound. */
const GLOB_STEP = 256;

/**
 * The policy of one `allowed-tools` list. A stored entry that is not well formed allows nothing:
 * the policy only ever narrows. Linear in the length of the list; the globs are compiled later.
 */
export function compilePolicy(allowedTools: readonly string[]): CompiledPolicy {
  const bodies = new Map<string, { spelling: string; bare: boolean; bodies: string[] }>();
  for (const written of allowedTools) {
    const entry = parseToolEntry(written);
    if (!entry) continue;
    const key = foldToolName(entry.head);
    let rule = bodies.get(key);
    if (!rule) {
      rule = { spelling: entry.head, bare: false, bodies: [] };
      bodies.set(key, rule);
    }
    if (entry.body === null) rule.bare = true;
    else rule.bodies.push(entry.body);
  }
  const byHead = new Map<string, HeadRule>();
  for (const [key, rule] of bodies) {
    const patterns = globsOf(rule.bodies);
    byHead.set(key, {
      spelling: rule.spelling,
      bare: rule.bare,
      patterns,
      compiled: new Array<CompiledGlob | undefined>(patterns.length),
    });
  }
  return { byHead };
}

/** The skills compiled one by one (callers with a cache compile through it instead). */
export function compileSkills(skills: readonly ActiveSkill[]): CompiledSkill[] {
  return skills.map((skill) => ({
    name: skill.name,
    policy: skill.allowed_tools === null ? null : compilePolicy(skill.allowed_tools),
  }));
}

const restricting = (skills: readonly CompiledSkill[]): Array<CompiledSkill & { policy: CompiledPolicy }> =>
  skills.filter((skill): skill is CompiledSkill & { policy: CompiledPolicy } => skill.policy !== null);

/**
 * The visible tools. With `offered` (the tools T the bot offers): T's own names, spelling and order
 * (exact repeats dropped), that every restricting skill names. Without it: `null` when nothing
 * restricts, else the heads every restricting skill names, spelled as the first restricting skill
 * writes them, sorted.
 */
export function visibleToolsOf(skills: readonly CompiledSkill[], offered?: readonly string[]): string[] | null {
  const rules = restricting(skills);
  const allowedByAll = (tool: string): boolean => {
    const key = foldToolName(tool);
    return rules.every((rule) => rule.policy.byHead.has(key));
  };
  if (offered !== undefined) return [...new Set(offered)].filter(allowedByAll);
  if (rules.length === 0) return null;
  const [first, ...others] = rules;
  const common = [...first.policy.byHead.entries()]
    .filter(([key]) => others.every((rule) => rule.policy.byHead.has(key)))
    .map(([, rule]) => rule.spelling);
  return common.sort();
}

export function visibleTools(
  skills: readonly Pick<ActiveSkill, 'allowed_tools'>[],
  offered?: readonly string[],
): string[] | null {
  return visibleToolsOf(compileSkills(skills.map((skill) => ({ name: '', ...skill }))), offered);
}

/** The blanks a shell skips around a command; other Unicode spaces are part of a word to it. */
function trimBlanks(command: string): string {
  const blank = (char: string): boolean => char === ' ' || char === '\t' || char === '\n' || char === '\r';
  let start = 0;
  let end = command.length;
  while (start < end && blank(command[start])) start += 1;
  while (end > start && blank(command[end - 1])) end -= 1;
  return command.slice(start, end);
}

/**
 * The globs of some bodies, in the order written, each once: a body is split on `|`, each pattern
 * is trimmed of the blanks around it (so `Bash(ls | pwd)` allows `pwd`, as its author means, just
 * as the command is trimmed), and tried as written and, when it holds `:`, with its first `:`
 * turned into a space. A pattern left empty (`Bash(ls|)`) could only match an empty command: it
 * allows nothing.
 */
function globsOf(bodies: readonly string[]): string[] {
  const globs = new Set<string>();
  for (const body of bodies) {
    for (const written of body.split('|')) {
      const pattern = trimBlanks(written);
      if (pattern === '') continue;
      globs.add(pattern);
      if (pattern.includes(':')) globs.add(pattern.replace(':', ' '));
    }
  }
  return [...globs];
}

function verdict(code: CallCode | null, deniedBy: readonly { name: string }[] = []): CallVerdict {
  return { allowed: code === null, code, denied_by: sortedUnique(deniedBy.map((skill) => skill.name)) };
}

/**
 * The call check, as steps: it yields whenever it has worked for MATCH_SLICE steps since the last
 * yield, so a caller can give the event loop back, and returns the verdict. The tool must be visible
 * (TOOL_NOT_ALLOWED, denied by the skills that do not name it); then every restricting skill whose
 * entries for the tool all carry a body constrains the call. A constrained call needs a `command`
 * (COMMAND_NOT_ALLOWED) that is one simple command (COMMAND_COMPOUND, denied by every constraining
 * skill). Before any matching, the work every glob of every constraining skill could take is added
 * up: past `budget` the call is refused (POLICY_TOO_COMPLEX, denied by every constraining skill),
 * whatever the patterns would have said. Then the command must be matched by some pattern of each
 * constraining skill (COMMAND_NOT_ALLOWED, denied by the skills none of whose patterns match).
 */
export function* checkCallSteps(
  skills: readonly CompiledSkill[],
  call: ToolCall,
  offered: readonly string[] | undefined,
  budget: number,
): Generator<void, CallVerdict> {
  const rules = restricting(skills);
  const key = foldToolName(call.tool);
  const lacking = rules.filter((rule) => !rule.policy.byHead.has(key));
  if (lacking.length > 0 || (offered !== undefined && !offered.includes(call.tool))) {
    return verdict('TOOL_NOT_ALLOWED', lacking);
  }
  const constraining = rules
    .map((rule) => ({ name: rule.name, head: rule.policy.byHead.get(key)! }))
    .filter((rule) => !rule.head.bare);
  if (constraining.length === 0) return verdict(null);
  if (call.command === undefined) return verdict('COMMAND_NOT_ALLOWED', constraining);
  // Reading the command and cutting it into code points are linear in it: a slice each.
  yield;
  if (readSimpleCommand(call.command) === null) return verdict('COMMAND_COMPOUND', constraining);
  yield;
  const text = codePointsOf(trimBlanks(call.command));
  yield;
  let work = 0;
  let sinceYield = 0;
  for (const rule of constraining) {
    for (let i = 0; i < rule.head.patterns.length; i++) {
      work += globCost(globAt(rule.head, i), text);
      if (work > budget) return verdict('POLICY_TOO_COMPLEX', constraining);
      sinceYield += GLOB_STEP;
      if (sinceYield >= MATCH_SLICE) {
        yield;
        sinceYield = 0;
      }
    }
  }
  const refusing: { name: string }[] = [];
  for (const rule of constraining) {
    let matched = false;
    for (let i = 0; i < rule.head.patterns.length; i++) {
      const glob = globAt(rule.head, i);
      sinceYield += GLOB_STEP + globCost(glob, text);
      if (sinceYield >= MATCH_SLICE) {
        yield;
        sinceYield = 0;
      }
      if (matchGlob(glob, text)) {
        matched = true;
        break;
      }
    }
    if (!matched) refusing.push(rule);
  }
  return refusing.length > 0 ? verdict('COMMAND_NOT_ALLOWED', refusing) : verdict(null);
}

/** Runs steps to their end, without giving anything back. */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** The call check over plain skills, at once (see checkCallSteps). */
export function checkCall(
  skills: readonly ActiveSkill[],
  call: ToolCall,
  offered?: readonly string[],
  budget = DEFAULT_MATCH_BUDGET,
): CallVerdict {
  return finish(checkCallSteps(compileSkills(skills), call, offered, budget));
}

/** Whether one body allows a command (trimmed of blanks), as the call check matches it. */
export function bodyAllows(body: string, command: string): boolean {
  const text: GlobText = codePointsOf(trimBlanks(command));
  return globsOf([body]).some((glob) => matchGlob(compileGlob(glob), text));
}
