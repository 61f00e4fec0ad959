// Pages of the skill listings (docs/mcp-skills.md#pagination): opaque cursors that carry the key of
// the last entry a page held, the order of entries, and how a page is cut without splitting an
// entry. Plain functions, no I/O.

/** The longest cursor any method takes; the cursors this service writes are far shorter. */
export const MAX_CURSOR_LENGTH = 1024;

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
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, k: kind, a: after }), 'utf8').toString('base64url');
}

function isListKey(value: unknown): value is ListKey {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { name, rank, namespace } = value as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    typeof namespace === 'string' &&
    typeof rank === 'number' &&
    Number.isInteger(rank) &&
    rank >= 0 &&
    rank <= 2 &&
    Object.keys(value).length === 3
  );
}

function decode(kind: CursorKind, cursor: string): unknown {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { v, k, a } = value as Record<string, unknown>;
  return v === CURSOR_VERSION && k === kind ? a : undefined;
}

/** The key a skills cursor continues after, or null when it is no cursor this service wrote. */
export function decodeListCursor(cursor: string): ListKey | null {
  const after = decode('skills', cursor);
  return isListKey(after) ? after : null;
}

/** The child name a directory cursor continues after, or null when it is no such cursor. */
export function decodeDirectoryCursor(cursor: string): string | null {
  const after = decode('directory', cursor);
  return typeof after === 'string' && after.length > 0 ? after : null;
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
