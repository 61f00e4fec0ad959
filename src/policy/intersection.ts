// Which tools the active skills leave visible, and whether one call passes all of them (docs/tool-policy.md).
import { parseToolEntry } from './allowed-tools';
import { isCompoundCommand } from './simple-command';
import { MatchBudget, codePointsOf, compileGlob, matchGlob } from './glob';
import { sortedUnique } from './requires';
import { ActiveSkill, CallCode, CallVerdict, ToolCall } from './policy.types';

/**
 * Heads compare ignoring ASCII case only. Heads are ASCII, and a full Unicode fold would let an
 * offered or called name such as "\u212Aill" (KELVIN SIGN) pass for "Kill".
 */
export function foldToolName(name: string): string {
  return name.replace(/[A-Z]/g, (char) => char.toLowerCase());
}

/** What one restricting skill says about one tool (all its entries with that head, any case). */
interface HeadRule {
  /** The head as the skill first writes it. */
  spelling: string;
  /** An entry without a body: every use of the tool is allowed. */
  bare: boolean;
  bodies: string[];
}

interface SkillRules {
  name: string;
  byHead: Map<string, HeadRule>;
}

/** The rules of each skill that restricts, in the order given; a `null` list restricts nothing. */
function restrictingRules(skills: readonly (Pick<ActiveSkill, 'allowed_tools'> & { name?: string })[]): SkillRules[] {
  const rules: SkillRules[] = [];
  for (const skill of skills) {
    if (skill.allowed_tools === null) continue;
    const byHead = new Map<string, HeadRule>();
    for (const written of skill.allowed_tools) {
      // A stored entry that is not well formed allows nothing: the policy only ever narrows.
      const entry = parseToolEntry(written);
      if (!entry) continue;
      const key = foldToolName(entry.head);
      let rule = byHead.get(key);
      if (!rule) {
        rule = { spelling: entry.head, bare: false, bodies: [] };
        byHead.set(key, rule);
      }
      if (entry.body === null) rule.bare = true;
      else rule.bodies.push(entry.body);
    }
    rules.push({ name: skill.name ?? '', byHead });
  }
  return rules;
}

/**
 * The visible tools. With `offered` (the tools T the bot offers): T's own names, spelling and order
 * (exact repeats dropped), that every restricting skill names. Without it: `null` when nothing
 * restricts, else the heads every restricting skill names, spelled as the first restricting skill
 * writes them, sorted.
 */
export function visibleTools(
  skills: readonly Pick<ActiveSkill, 'allowed_tools'>[],
  offered?: readonly string[],
): string[] | null {
  const rules = restrictingRules(skills);
  const allowedByAll = (tool: string): boolean => {
    const key = foldToolName(tool);
    return rules.every((rule) => rule.byHead.has(key));
  };
  if (offered !== undefined) return [...new Set(offered)].filter(allowedByAll);
  if (rules.length === 0) return null;
  const [first, ...others] = rules;
  const common = [...first.byHead.entries()]
    .filter(([key]) => others.every((rule) => rule.byHead.has(key)))
    .map(([, rule]) => rule.spelling);
  return common.sort();
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
 * The matching work one skill may spend on one call: 64 full scans of a 16 KiB command, far more
 * than any real declaration needs (a pattern costs a scan only when text sits between two stars).
 * A skill whose patterns would need more refuses the call, as when none matches: the check fails
 * closed, and a declaration of thousands of patterns cannot hold the event loop.
 */
export const MAX_MATCH_WORK_PER_SKILL = 64 * 16 * 1024;

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

/** Whether some pattern of `bodies` matches the whole command, within the skill's budget. */
function bodiesMatch(bodies: readonly string[], command: Int32Array): boolean {
  const budget = new MatchBudget(MAX_MATCH_WORK_PER_SKILL);
  for (const glob of globsOf(bodies)) {
    if (matchGlob(compileGlob(glob), command, budget)) return true;
    if (budget.exhausted) return false;
  }
  return false;
}

/** Whether one body allows a command (trimmed of blanks), as the call check reads it. */
export function bodyAllows(body: string, command: string): boolean {
  return bodiesMatch([body], codePointsOf(trimBlanks(command)));
}

function verdict(code: CallCode | null, deniedBy: readonly SkillRules[] = []): CallVerdict {
  return { allowed: code === null, code, denied_by: sortedUnique(deniedBy.map((rule) => rule.name)) };
}

/**
 * The call check: the tool must be visible (TOOL_NOT_ALLOWED, denied by the skills that do not name
 * it); then every restricting skill whose entries for the tool all carry a body constrains the
 * call. A constrained call needs a `command` (COMMAND_NOT_ALLOWED), a simple one (COMMAND_COMPOUND,
 * denied by every constraining skill), and one that some pattern of each constraining skill
 * matches (COMMAND_NOT_ALLOWED, denied by the skills none of whose patterns match).
 */
export function checkCall(skills: readonly ActiveSkill[], call: ToolCall, offered?: readonly string[]): CallVerdict {
  const rules = restrictingRules(skills);
  const key = foldToolName(call.tool);
  const lacking = rules.filter((rule) => !rule.byHead.has(key));
  if (lacking.length > 0 || (offered !== undefined && !offered.includes(call.tool))) {
    return verdict('TOOL_NOT_ALLOWED', lacking);
  }
  const constraining = rules.filter((rule) => !rule.byHead.get(key)!.bare);
  if (constraining.length === 0) return verdict(null);
  if (call.command === undefined) return verdict('COMMAND_NOT_ALLOWED', constraining);
  if (isCompoundCommand(call.command)) return verdict('COMMAND_COMPOUND', constraining);
  const command = codePointsOf(trimBlanks(call.command));
  const refusing = constraining.filter((rule) => !bodiesMatch(rule.byHead.get(key)!.bodies, command));
  return refusing.length > 0 ? verdict('COMMAND_NOT_ALLOWED', refusing) : verdict(null);
}
