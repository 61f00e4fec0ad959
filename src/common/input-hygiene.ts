// Input hygiene (docs/limits.md#hostile-input) as plain functions: strings PostgreSQL cannot hold (U+0000) or that
// UTF-8 cannot encode (lone surrogates), and a budget walk that bounds any parsed JSON body in
// linear time before a DTO sees it. No Nest or Express here.
import { isUtf8 } from 'node:buffer';
import { type UnsafeStringReason, unsafeStringReason } from '../package/unsafe-string';

export { type UnsafeStringReason, unsafeStringReason } from '../package/unsafe-string';

/** Nesting of a JSON body (docs/limits.md#bounds). */
export const MAX_JSON_DEPTH = 32;
/**
 * Items of any one array or keys of any one object in a JSON body. Above every count the contract
 * allows (100 skills, 64 labels, ...), so the DTOs' own limits speak first; it bounds what any
 * route, present or future, does per item.
 */
export const MAX_JSON_CONTAINER_ITEMS = 1_000;
/** Problems listed at most per request; the walk stops there. */
export const MAX_REPORTED_PROBLEMS = 20;

export function unsafeStringMessage(path: string, reason: UnsafeStringReason, isKey = false): string {
  if (reason === 'INVALID_UTF8') {
    return isKey ? `${path}: a key must be valid UTF-8` : `${path} must be valid UTF-8 (no lone surrogates)`;
  }
  const what = reason === 'NUL' ? 'U+0000' : 'a lone surrogate';
  return isKey ? `${path}: a key must not contain ${what}` : `${path} must not contain ${what}`;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `labels.additionalSkills`, `skills[3]`, `labels["a b"]`: JSON escapes keep odd keys printable. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (PLAIN_KEY.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

export interface JsonBudget {
  maxDepth: number;
  maxContainerItems: number;
}

export const DEFAULT_JSON_BUDGET: JsonBudget = {
  maxDepth: MAX_JSON_DEPTH,
  maxContainerItems: MAX_JSON_CONTAINER_ITEMS,
};

/**
 * Every rule of the budget that a parsed JSON value breaks, each naming its path: strings and keys
 * holding U+0000 or a lone surrogate, containers over the item count, nesting over the depth. A
 * container over the count is reported without being entered, so the walk costs at most the
 * parse did, whatever the body.
 */
export function jsonBudgetProblems(root: unknown, budget: JsonBudget = DEFAULT_JSON_BUDGET): string[] {
  const problems: string[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 1 }];
  let deepReported = false;
  while (stack.length > 0 && problems.length < MAX_REPORTED_PROBLEMS) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const reason = unsafeStringReason(value);
      if (reason) problems.push(unsafeStringMessage(path || 'the body', reason));
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > budget.maxDepth) {
      if (!deepReported) problems.push(`the body must not be nested deeper than ${budget.maxDepth} levels`);
      deepReported = true;
      continue;
    }
    const label = path || 'the body';
    if (Array.isArray(value)) {
      if (value.length > budget.maxContainerItems) {
        problems.push(
          `${label} has more than ${budget.maxContainerItems} elements, the most any list in a request may have`,
        );
        continue;
      }
      // Pushed in reverse so that problems come out in document order.
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: childPath(path, i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > budget.maxContainerItems) {
      problems.push(
        `${label} has more than ${budget.maxContainerItems} keys, the most any object in a request may have`,
      );
      continue;
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const keyPath = childPath(path, key);
      const reason = unsafeStringReason(key);
      if (reason) {
        problems.push(unsafeStringMessage(keyPath, reason, true));
        continue;
      }
      stack.push({ value: (value as Record<string, unknown>)[key], path: keyPath, depth: depth + 1 });
    }
  }
  return problems;
}

/** Percent-decoded bytes of one query component (`+` is a space); literal characters as sent. */
function componentBytes(raw: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === 0x2b) {
      bytes.push(0x20);
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      // Node hands the request target over byte for byte (latin1); anything wider is re-encoded.
      for (const b of Buffer.from(raw[i], c <= 0xff ? 'latin1' : 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes);
}

function componentReason(bytes: Buffer): UnsafeStringReason | null {
  if (bytes.includes(0)) return 'NUL';
  // Invalid UTF-8 (a lone surrogate encoded, stray bytes) would be decoded as U+FFFD: refuse it.
  return isUtf8(bytes) ? null : 'INVALID_UTF8';
}

/**
 * Every query parameter of a raw query string (without `?`) whose name or value, once decoded,
 * would hold U+0000 or would not be valid UTF-8 (which decoders silently turn into U+FFFD, and a
 * lone surrogate can only arrive that way). Checked on the raw bytes, before any parser.
 */
export function queryStringProblems(rawQuery: string): string[] {
  const problems: string[] = [];
  if (!rawQuery) return problems;
  for (const pair of rawQuery.split('&')) {
    if (problems.length >= MAX_REPORTED_PROBLEMS) break;
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const keyBytes = componentBytes(rawKey);
    const keyReason = componentReason(keyBytes);
    const name = childPath('', keyBytes.toString('utf8'));
    if (keyReason) {
      problems.push(`query parameter ${unsafeStringMessage(name, keyReason, true)}`);
      continue;
    }
    const valueReason = eq < 0 ? null : componentReason(componentBytes(pair.slice(eq + 1)));
    if (valueReason) problems.push(`query parameter ${unsafeStringMessage(name, valueReason)}`);
  }
  return problems;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The depth and item-count rules of the budget, checked on the raw bytes of a JSON body before it
 * is parsed: a body of 500,000 nested arrays or 100,000 keys costs `JSON.parse` a few hundred
 * milliseconds of the event loop, and this scan a few. Answers a problem worded as
 * `jsonBudgetProblems` words it, or null when the body keeps to both rules, or when its brackets
 * and strings do not balance (then the parser answers that it cannot be parsed).
 */
export function rawJsonShapeProblem(body: Buffer, budget: JsonBudget = DEFAULT_JSON_BUDGET): string | null {
  // One entry per open container, in plain arrays: no object or path is made per item. The kinds
  // of the containers take one byte each (a body of n bytes opens at most n of them).
  const isObject = new Uint8Array(body.length);
  let depth = 0;
  const commas: number[] = [];
  /** Where the current key of each open object starts and ends (its quotes included). */
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let problem: string | null = null;
  let lastString = -1;
  let lastStringEnd = -1;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === QUOTE) {
      lastString = i;
      for (i++; i < body.length && body[i] !== QUOTE; i++) if (body[i] === BACKSLASH) i++;
      if (i >= body.length) return null;
      lastStringEnd = i + 1;
    } else if (c === COLON) {
      const top = depth - 1;
      if (top >= 0 && top < budget.maxDepth && isObject[top] === 1) {
        keyStart[top] = lastString;
        keyEnd[top] = lastStringEnd;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth + 1 > budget.maxDepth && problem === null) {
        problem = `the body must not be nested deeper than ${budget.maxDepth} levels`;
      }
      // Below the depth limit only the kind of each container is kept, to check the brackets.
      if (depth < budget.maxDepth) {
        commas.push(0);
        keyStart.push(-1);
        keyEnd.push(-1);
      }
      isObject[depth++] = c === OPEN_OBJECT ? 1 : 0;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 0 || (isObject[--depth] === 1) !== (c === CLOSE_OBJECT)) return null;
      if (depth < budget.maxDepth) {
        commas.pop();
        keyStart.pop();
        keyEnd.pop();
      }
    } else if (c === COMMA && depth > 0 && depth <= budget.maxDepth) {
      const top = depth - 1;
      // n commas separate n + 1 items.
      if (++commas[top] + 1 > budget.maxContainerItems && problem === null) {
        const label = shapePath(body, isObject, commas, keyStart, keyEnd, top) || 'the body';
        problem =
          isObject[top] === 1
            ? `${label} has more than ${budget.maxContainerItems} keys, the most any object in a request may have`
            : `${label} has more than ${budget.maxContainerItems} elements, the most any list in a request may have`;
      }
    }
  }
  return depth === 0 ? problem : null;
}

/** The path of the open container at `level`, as `childPath` writes it. */
function shapePath(
  body: Buffer,
  isObject: Uint8Array,
  commas: number[],
  keyStart: number[],
  keyEnd: number[],
  level: number,
): string {
  let path = '';
  for (let j = 0; j < level; j++) {
    if (isObject[j] === 0) {
      path = childPath(path, commas[j]);
      continue;
    }
    let key = '';
    try {
      key = String(JSON.parse(body.toString('utf8', keyStart[j], keyEnd[j])));
    } catch {
      // Unbalanced input is answered by the parser; the path is not shown then.
    }
    path = childPath(path, key);
  }
  return path;
}
