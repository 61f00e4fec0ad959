// CONTRACT §7.2 patterns: a case-sensitive glob over code points, `*` any run, `?` one character.
// Patterns come from skill authors and commands from agents, so no regex is built from either:
// the pattern is cut at its stars, the pieces before the first and after the last are compared in
// place, and each piece between is found at its leftmost place after the previous one (leftmost is
// always safe for a piece between two stars). A literal piece is found with Knuth-Morris-Pratt and
// a piece holding `?` with a bit-parallel shift-and, so a match costs O(n + m) without `?` and
// O(n * (k / 32 + 32)) with it (k the longest piece holding `?`), never the backtracking of a regex.

const STAR = 0x2a;
const QUESTION = 0x3f;
/** A `?` in a compiled piece: matches any one code point. */
const ANY = -1;
/** A code point seen this often in one `?` piece gets a full mask; rarer ones keep their positions. */
const DENSE_FROM = 32;

export interface CompiledGlob {
  /** The pattern cut at its stars, `?` as ANY; one piece when the pattern has no star. */
  pieces: readonly Int32Array[];
  starred: boolean;
}

export function codePointsOf(text: string): Int32Array {
  const points = new Int32Array(text.length);
  let length = 0;
  for (const char of text) points[length++] = char.codePointAt(0)!;
  return points.subarray(0, length);
}

export function compileGlob(pattern: string): CompiledGlob {
  const pieces: Int32Array[] = [];
  let current: number[] = [];
  let starred = false;
  for (const char of pattern) {
    const point = char.codePointAt(0)!;
    if (point === STAR) {
      pieces.push(Int32Array.from(current));
      current = [];
      starred = true;
    } else {
      current.push(point === QUESTION ? ANY : point);
    }
  }
  pieces.push(Int32Array.from(current));
  return { pieces, starred };
}

/**
 * Matching work left for one decision, counted in text positions scanned (a position costs more in
 * a long piece holding `?`). One pattern costs at most one scan of the text, but a skill may write
 * thousands of patterns: a budget keeps a 16 KiB command against them from holding the event loop.
 */
export class MatchBudget {
  exhausted = false;
  constructor(public left: number) {}
}

/**
 * Whether `glob` matches the whole of `text` (code points, as from codePointsOf). With a budget, a
 * search that would scan past it stops there, answers no match and marks the budget exhausted.
 */
export function matchGlob(glob: CompiledGlob, text: Int32Array, budget?: MatchBudget): boolean {
  if (budget?.exhausted) return false;
  const { pieces } = glob;
  if (!glob.starred) return pieces[0].length === text.length && matchesAt(pieces[0], text, 0);
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (first.length + last.length > text.length) return false;
  const end = text.length - last.length;
  if (!matchesAt(first, text, 0) || !matchesAt(last, text, end)) return false;
  let position = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i];
    if (piece.length === 0) continue;
    const found = find(piece, text, position, end, budget);
    if (found < 0) return false;
    position = found + piece.length;
  }
  return true;
}

export function globMatch(pattern: string, text: string): boolean {
  return matchGlob(compileGlob(pattern), codePointsOf(text));
}

function matchesAt(piece: Int32Array, text: Int32Array, at: number): boolean {
  for (let i = 0; i < piece.length; i++) {
    if (piece[i] !== ANY && piece[i] !== text[at + i]) return false;
  }
  return true;
}

/** The leftmost start of `piece` lying wholly inside text[from, to), or -1. */
function find(piece: Int32Array, text: Int32Array, from: number, to: number, budget?: MatchBudget): number {
  if (piece.length > to - from) return -1;
  const withAny = piece.includes(ANY);
  // A shift-and step touches every word of the state, and at most DENSE_FROM kept positions.
  const unit = withAny ? Math.ceil(piece.length / 32) + DENSE_FROM : 1;
  let limit = to;
  if (budget) limit = Math.min(to, from + Math.floor(budget.left / unit));
  const found = withAny ? findWithAny(piece, text, from, limit) : findLiteral(piece, text, from, limit);
  if (budget) {
    budget.left -= ((found < 0 ? limit : found + piece.length) - from) * unit;
    if (found < 0 && limit < to) budget.exhausted = true;
  }
  return found;
}

function findLiteral(piece: Int32Array, text: Int32Array, from: number, to: number): number {
  const k = piece.length;
  const fail = new Int32Array(k);
  for (let i = 1, j = 0; i < k; i++) {
    while (j > 0 && piece[i] !== piece[j]) j = fail[j - 1];
    if (piece[i] === piece[j]) j += 1;
    fail[i] = j;
  }
  for (let i = from, j = 0; i < to; i++) {
    while (j > 0 && text[i] !== piece[j]) j = fail[j - 1];
    if (text[i] === piece[j]) j += 1;
    if (j === k) return i - k + 1;
  }
  return -1;
}

/**
 * Shift-and: bit i of the state is set when piece[0..i] matches the text ending here. Full masks
 * for every distinct code point would take (distinct * k / 32) words, quadratic in the piece, so
 * only the code points seen DENSE_FROM times or more get one (at most k / 32 of them); a rarer code
 * point sets its few positions back after the state is masked by `?`. Each text character costs
 * O(k / 32 + DENSE_FROM).
 */
function findWithAny(piece: Int32Array, text: Int32Array, from: number, to: number): number {
  const k = piece.length;
  const words = Math.ceil(k / 32);
  const any = new Uint32Array(words);
  const positions = new Map<number, number[]>();
  piece.forEach((point, i) => {
    if (point === ANY) any[i >> 5] |= 1 << (i & 31);
    else {
      const list = positions.get(point);
      if (list) list.push(i);
      else positions.set(point, [i]);
    }
  });
  const dense = new Map<number, Uint32Array>();
  for (const [point, list] of positions) {
    if (list.length < DENSE_FROM) continue;
    const mask = any.slice();
    for (const i of list) mask[i >> 5] |= 1 << (i & 31);
    dense.set(point, mask);
  }

  const state = new Uint32Array(words);
  const kept: number[] = [];
  const topWord = (k - 1) >> 5;
  const topBit = 1 << ((k - 1) & 31);
  for (let i = from; i < to; i++) {
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const value = state[w];
      state[w] = (value << 1) | carry;
      carry = value >>> 31;
    }
    const point = text[i];
    const mask = dense.get(point);
    if (mask) {
      for (let w = 0; w < words; w++) state[w] &= mask[w];
    } else {
      kept.length = 0;
      for (const p of positions.get(point) ?? []) {
        if ((state[p >> 5] & (1 << (p & 31))) !== 0) kept.push(p);
      }
      for (let w = 0; w < words; w++) state[w] &= any[w];
      for (const p of kept) state[p >> 5] |= 1 << (p & 31);
    }
    if ((state[topWord] & topBit) !== 0) return i - k + 1;
  }
  return -1;
}
