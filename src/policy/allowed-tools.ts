// docs/packages.md#tool-policy-fields: the `allowed-tools` field of SKILL.md, read into entries `Head` or `Head(body)`.
import { ProblemList, kindOf, policyProblem, shown } from './policy-problems';
import { PolicyProblem, ToolEntry } from './policy.types';

const FIELD = 'allowed-tools';
const HEAD = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const WHITESPACE = /\s/;

export type EntryFault = 'EMPTY' | 'UNBALANCED' | 'HEAD' | 'TRAILING' | 'EMPTY_BODY';

export type EntryReading = ({ ok: true } & ToolEntry) | { ok: false; fault: EntryFault };

/**
 * One trimmed entry: `Head`, or `Head(body)` where the parenthesis after the head closes at the very
 * end and every parenthesis inside the body is balanced. One pass over the entry.
 */
export function readToolEntry(entry: string): EntryReading {
  if (entry === '') return { ok: false, fault: 'EMPTY' };
  const open = entry.indexOf('(');
  if (open < 0) {
    if (entry.includes(')')) return { ok: false, fault: 'UNBALANCED' };
    return HEAD.test(entry) ? { ok: true, head: entry, body: null } : { ok: false, fault: 'HEAD' };
  }
  const head = entry.slice(0, open);
  if (head.includes(')')) return { ok: false, fault: 'UNBALANCED' };
  let depth = 0;
  let close = -1;
  for (let i = open; i < entry.length; i++) {
    const char = entry[i];
    if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth < 0) return { ok: false, fault: 'UNBALANCED' };
      if (depth === 0 && close < 0) close = i;
    }
  }
  if (depth !== 0) return { ok: false, fault: 'UNBALANCED' };
  if (!HEAD.test(head)) return { ok: false, fault: 'HEAD' };
  if (close !== entry.length - 1) return { ok: false, fault: 'TRAILING' };
  const body = entry.slice(open + 1, close);
  // A blank body could only match an empty command: it is a mistake, never a policy.
  if (body.trim() === '') return { ok: false, fault: 'EMPTY_BODY' };
  return { ok: true, head, body };
}

/** A stored entry as the intersection reads it; `null` for an entry that is not well formed. */
export function parseToolEntry(entry: string): ToolEntry | null {
  const reading = readToolEntry(entry.trim());
  return reading.ok ? { head: reading.head, body: reading.body } : null;
}

/**
 * The entries of the string form: split on whitespace or `,` outside parentheses. A `)` with no
 * `(` open does not close anything, so the entry holding it stays whole and is reported.
 */
export function splitAllowedTools(value: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (depth === 0 && (char === ',' || WHITESPACE.test(char))) {
      if (start >= 0) entries.push(value.slice(start, i));
      start = -1;
      continue;
    }
    if (start < 0) start = i;
    if (char === '(') depth += 1;
    else if (char === ')' && depth > 0) depth -= 1;
  }
  if (start >= 0) entries.push(value.slice(start));
  return entries;
}

function faultMessage(fault: EntryFault, entry: string): string {
  const quoted = shown(entry);
  switch (fault) {
    case 'EMPTY':
      return 'The allowed-tools list holds an empty entry.';
    case 'UNBALANCED':
      return `The allowed-tools entry ${quoted} has unbalanced parentheses.`;
    case 'HEAD':
      return entry.startsWith('(')
        ? `The allowed-tools entry ${quoted} has no tool name before "(": write the name and "(" together, as in "Bash(git:*)".`
        : `The allowed-tools entry ${quoted} is not a tool name: a name starts with a letter and holds only letters, digits, "_", "." and "-", optionally followed by "(patterns)".`;
    case 'TRAILING':
      return `The allowed-tools entry ${quoted} has text after its closing parenthesis: write each entry as Name or Name(patterns).`;
    case 'EMPTY_BODY': {
      const head = entry.slice(0, entry.indexOf('('));
      return `The allowed-tools entry ${quoted} has nothing between its parentheses: write "${head}" alone to allow every use of the tool.`;
    }
  }
}

export interface AllowedToolsReading {
  /** Valid entries only: on errors this is narrower than the author meant, never wider. */
  allowed_tools: string[] | null;
  errors: PolicyProblem[];
  warnings: PolicyProblem[];
}

/**
 * `present` is whether the frontmatter has the key. An absent key restricts nothing (`null`); a key
 * present with an empty value (`""`, `[]`, or nothing at all) allows no tool. Linear in the input.
 */
export function parseAllowedTools(present: boolean, value: unknown): AllowedToolsReading {
  const warnings: PolicyProblem[] = [];
  if (!present) return { allowed_tools: null, errors: [], warnings };
  const errors = new ProblemList('ALLOWED_TOOLS_INVALID', FIELD);
  let entries: string[] = [];
  if (value === null || value === undefined) {
    entries = [];
  } else if (typeof value === 'string') {
    entries = splitAllowedTools(value);
  } else if (Array.isArray(value)) {
    const message =
      'The allowed-tools field is a YAML list; it is accepted, but the format writes one string such as "Read Bash(git:*)".';
    warnings.push(policyProblem('ALLOWED_TOOLS_LIST', message, FIELD));
    value.forEach((item: unknown, index) => {
      if (typeof item !== 'string')
        errors.add(`The allowed-tools list item ${index + 1} is ${kindOf(item)}, not a string.`);
      else if (item.trim() === '') errors.add(`The allowed-tools list item ${index + 1} is empty.`);
      else entries.push(item.trim());
    });
  } else {
    errors.add(
      `The allowed-tools field is ${kindOf(value)}: write a string of entries separated by spaces or commas, such as "Read Bash(git:*)".`,
    );
  }

  const kept = new Set<string>();
  for (const entry of entries) {
    const reading = readToolEntry(entry);
    if (reading.ok) kept.add(entry);
    else errors.add(faultMessage(reading.fault, entry));
  }
  return { allowed_tools: [...kept], errors: errors.list(), warnings };
}
