// Pages of the skill listings (docs/mcp-skills.md#pagination): opaque cursors that carry the key of
// the last entry a page held, the order of entries, and how a page is cut without splitting an
// entry. Every cursor of every MCP list is decoded here, and only a cursor this service could have
// written is taken: decoded, checked whole, and written back the same. Plain functions, no I/O.
import { DEFAULT_NAMESPACE, groupNameProblems, isSkillName } from '../access';

/** The longest cursor any method takes; the cursors this service writes are far shorter. */
export const MAX_CURSOR_LENGTH = 1024;

/** The answer (-32602) to any cursor this service did not write, whatever is wrong with it. */
export const INVALID_CURSOR = 'Invalid cursor: pass back a nextCursor exactly as it was received';

/** Where an entry of skills/list or resources/list sorts: by name, then scope, then group path. */
export interface ListKey {
  name: string;
  /** 0 personal, 1 group, 2 public. */
  rank: number;
  namespace: string;
}

/** What a cursor continues: a skill listing, or one folder of resources/directory/read. */
export type CursorKind = 'skills' | 'directory';

const CURSOR_VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** The longest child name a folder cursor may carry (a manifest path is at most 4,096 bytes). */
const MAX_CHILD_NAME = 4096;

/** Compares by UTF-16 units, which for the ASCII names and namespaces of skills is byte order. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareKeys(a: ListKey, b: ListKey): number {
  return compareText(a.name, b.name) || a.rank - b.rank || compareText(a.namespace, b.namespace);
}

/** Byte order of UTF-8, the order of manifest paths. */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function encodeCursor(kind: 'skills', after: ListKey): string;
export function encodeCursor(kind: 'directory', after: string): string;
export function encodeCursor(kind: CursorKind, after: ListKey | string): string {
  // Fields in one order, so that a cursor has one encoding (decoding compares against it).
  const a = typeof after === 'string' ? after : { name: after.name, rank: after.rank, namespace: after.namespace };
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, k: kind, a }), 'utf8').toString('base64url');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Exactly these keys, no others. */
function hasKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

/**
 * A key some entry could have: a skill name; personal and public entries in `default`, group
 * entries in a group (rank 1). Anything else would reach the database as a key no row has.
 */
function isListKey(value: unknown): value is ListKey {
  if (!isRecord(value) || !hasKeys(value, ['name', 'rank', 'namespace'])) return false;
  const { name, rank, namespace } = value;
  if (!isSkillName(name) || typeof namespace !== 'string') return false;
  if (rank === 0 || rank === 2) return namespace === DEFAULT_NAMESPACE;
  return rank === 1 && namespace.length > 0 && groupNameProblems(namespace).length === 0;
}

/** A name a folder could hold: one path segment of well-formed text without NUL. */
function isChildName(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_CHILD_NAME &&
    !value.includes('/') &&
    !value.includes('\u0000') &&
    value.isWellFormed()
  );
}

/** What a cursor of `kind` continues after, unchecked; undefined when it is no such cursor at all. */
function payload(kind: CursorKind, cursor: unknown): unknown {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  if (!BASE64URL.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !hasKeys(value, ['v', 'k', 'a'])) return undefined;
  return value.v === CURSOR_VERSION && value.k === kind ? value.a : undefined;
}

/**
 * The key a skills cursor continues after, or null when it is no cursor this service wrote:
 * malformed, of another kind, a key no entry could have, or another encoding of a valid one
 * (other bytes, spacing, field order, padding, invalid UTF-8).
 */
export function decodeListCursor(cursor: unknown): ListKey | null {
  const after = payload('skills', cursor);
  if (!isListKey(after)) return null;
  return encodeCursor('skills', after) === cursor ? after : null;
}

/** The child name a directory cursor continues after, or null when it is no cursor this service wrote. */
export function decodeDirectoryCursor(cursor: unknown): string | null {
  const after = payload('directory', cursor);
  if (!isChildName(after)) return null;
  return encodeCursor('directory', after) === cursor ? after : null;
}

/**
 * The longest run of `items` (in order) whose weights stay within `budget`, and always the
 * first item, so that no entry is ever split and every page moves on.
 */
export function withinBudget<T>(items: readonly T[], weight: (item: T) => number, budget: number): T[] {
  const kept: T[] = [];
  let total = 0;
  for (const item of items) {
    total += weight(item);
    if (kept.length > 0 && total > budget) break;
    kept.push(item);
  }
  return kept;
}

/**
 * One page of `sorted` after `after` (exclusive; from the start when null): at most `limit`
 * items, and whether more follow.
 */
export function pageAfter<T, K>(
  sorted: readonly T[],
  keyOf: (item: T) => K,
  compare: (a: K, b: K) => number,
  after: K | null,
  limit: number,
): { items: T[]; more: boolean } {
  const start = after === null ? 0 : sorted.findIndex((item) => compare(keyOf(item), after) > 0);
  if (start < 0) return { items: [], more: false };
  const items = sorted.slice(start, start + limit);
  return { items, more: start + limit < sorted.length };
}
