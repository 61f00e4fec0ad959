// The patterns of docs/tool-policy.md#patterns: a case-sensitive glob over code points, `*` any
// run, `?` one character. Patterns come from skill authors and commands from agents, so no regex is
// built from either: the pattern is cut at its stars, the pieces before the first and after the
// last are compared in place, and each piece between is found at its leftmost place after the
// previous one (leftmost is always safe for a piece between two stars). A literal piece is found
// with Knuth-Morris-Pratt and a piece holding `?` with a bit-parallel shift-and, so a match costs
// O(n + m) without `?` and O(n * k / 32) with it (k the longest piece holding `?`), never the
// backtracking of a regex. Everything that depends only on the pattern is computed once, by
// compileGlob; globCost bounds the work of one match before it starts.

const STAR = 0x2a;
const QUESTION = 0x3f;
/** A `?` in a compiled piece: matches any one code point. */
const ANY = -1;
/** Code points below this get a shift-and mask from a table filled per search. */
const TABLE_SIZE = 128;
/** A non-ASCII code point seen this often in one `?` piece gets a full mask; rarer ones keep their positions. */
const DENSE_FROM = 32;

interface LiteralPiece {
  points: Int32Array;
  /** Knuth-Morris-Pratt: the longest proper border of each prefix. */
  fail: Int32Array;
}

interface WildPiece {
  points: Int32Array;
  /** 32-bit words of the shift-and state. */
  words: number;
  /** Bit i set where the piece holds `?`. */
  any: Uint32Array;
  /** The positions of each ASCII code point (index into TABLE_SIZE), for the per-search table. */
  ascii: Map<number, number[]>;
  /** Full masks of the non-ASCII code points seen DENSE_FROM times or more. */
  dense: Map<number, Uint32Array>;
  /** The positions of the other non-ASCII code points. */
  sparse: Map<number, number[]>;
}

type Piece = { literal: LiteralPiece } | { wild: WildPiece };

export interface CompiledGlob {
  /** The pattern cut at its stars; one piece when the pattern has no star. */
  pieces: readonly Piece[];
  starred: boolean;
}

/** The text a glob is matched against: its code points, and how many of them are not ASCII. */
export interface GlobText {
  points: Int32Array;
  nonAscii: number;
}

export function codePointsOf(text: string): GlobText {
  const points = new Int32Array(text.length);
  let length = 0;
  let nonAscii = 0;
  // By index, not `for...of`, which makes a string of every character.
  for (let i = 0; i < text.length; i++) {
    const point = text.codePointAt(i)!;
    if (point > 0xffff) i += 1;
    if (point >= TABLE_SIZE) nonAscii += 1;
    points[length++] = point;
  }
  return { points: points.subarray(0, length), nonAscii };
}

export function compileGlob(pattern: string): CompiledGlob {
  const pieces: Piece[] = [];
  let current: number[] = [];
  let starred = false;
  for (const char of pattern) {
    const point = char.codePointAt(0)!;
    if (point === STAR) {
      pieces.push(compilePiece(current));
      current = [];
      starred = true;
    } else {
      current.push(point === QUESTION ? ANY : point);
    }
  }
  pieces.push(compilePiece(current));
  return { pieces, starred };
}

/** The piece between two adjacent stars, or before a leading one: shared, it is the most common. */
const EMPTY_PIECE: Piece = { literal: { points: new Int32Array(0), fail: new Int32Array(0) } };

function compilePiece(list: number[]): Piece {
  if (list.length === 0) return EMPTY_PIECE;
  const points = Int32Array.from(list);
  const k = points.length;
  if (!points.includes(ANY)) {
    const fail = new Int32Array(k);
    for (let i = 1, j = 0; i < k; i++) {
      while (j > 0 && points[i] !== points[j]) j = fail[j - 1];
      if (points[i] === points[j]) j += 1;
      fail[i] = j;
    }
    return { literal: { points, fail } };
  }
  const words = Math.ceil(k / 32);
  const any = new Uint32Array(words);
  const ascii = new Map<number, number[]>();
  const others = new Map<number, number[]>();
  points.forEach((point, i) => {
    if (point === ANY) {
      any[i >> 5] |= 1 << (i & 31);
      return;
    }
    const byPoint = point < TABLE_SIZE ? ascii : others;
    const list = byPoint.get(point);
    if (list) list.push(i);
    else byPoint.set(point, [i]);
  });
  const dense = new Map<number, Uint32Array>();
  const sparse = new Map<number, number[]>();
  for (const [point, positions] of others) {
    if (positions.length < DENSE_FROM) {
      sparse.set(point, positions);
      continue;
    }
    const mask = any.slice();
    for (const i of positions) mask[i >> 5] |= 1 << (i & 31);
    dense.set(point, mask);
  }
  return { wild: { points, words, any, ascii, dense, sparse } };
}

const pointsOf = (piece: Piece): Int32Array => ('literal' in piece ? piece.literal.points : piece.wild.points);

/**
 * An upper bound of the work of matchGlob(glob, text), in steps: one per text position compared or
 * scanned by a literal piece; per position a `?` piece scans, one per word of its state (plus
 * DENSE_FROM for a non-ASCII position), and its table of TABLE_SIZE masks filled once per search.
 * Depends only on the glob and on the text's length and non-ASCII count, so it is known before any
 * matching starts.
 */
export function globCost(glob: CompiledGlob, text: GlobText): number {
  const n = text.points.length;
  const { pieces } = glob;
  if (!glob.starred) return 1 + (pointsOf(pieces[0]).length === n ? n : 0);
  const first = pointsOf(pieces[0]).length;
  const last = pointsOf(pieces[pieces.length - 1]).length;
  if (first + last > n) return 1;
  const span = n - first - last;
  let perPosition = 0;
  let setup = 0;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i];
    if ('literal' in piece) perPosition = Math.max(perPosition, piece.literal.points.length === 0 ? 0 : 1);
    else {
      perPosition = Math.max(perPosition, piece.wild.words);
      setup += TABLE_SIZE * piece.wild.words + piece.wild.points.length;
    }
  }
  const wild = pieces.some((piece, i) => i > 0 && i < pieces.length - 1 && 'wild' in piece);
  // Successive pieces scan disjoint stretches of the text, so the widest state bounds them all.
  return 1 + first + last + span * perPosition + (wild ? Math.min(span, text.nonAscii) * DENSE_FROM : 0) + setup;
}

/** Whether `glob` matches the whole of `text`. */
export function matchGlob(glob: CompiledGlob, text: GlobText): boolean {
  const { pieces } = glob;
  const points = text.points;
  if (!glob.starred) {
    const only = pointsOf(pieces[0]);
    return only.length === points.length && matchesAt(only, points, 0);
  }
  const first = pointsOf(pieces[0]);
  const last = pointsOf(pieces[pieces.length - 1]);
  if (first.length + last.length > points.length) return false;
  const end = points.length - last.length;
  if (!matchesAt(first, points, 0) || !matchesAt(last, points, end)) return false;
  let position = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i];
    const k = pointsOf(piece).length;
    if (k === 0) continue;
    if (k > end - position) return false;
    const found =
      'literal' in piece
        ? findLiteral(piece.literal, points, position, end)
        : findWild(piece.wild, points, position, end);
    if (found < 0) return false;
    position = found + k;
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

/** The leftmost start of the piece lying wholly inside text[from, to), or -1. */
function findLiteral({ points, fail }: LiteralPiece, text: Int32Array, from: number, to: number): number {
  const k = points.length;
  for (let i = from, j = 0; i < to; i++) {
    while (j > 0 && text[i] !== points[j]) j = fail[j - 1];
    if (text[i] === points[j]) j += 1;
    if (j === k) return i - k + 1;
  }
  return -1;
}

/**
 * Shift-and: bit i of the state is set when piece[0..i] matches the text ending here. An ASCII text
 * character takes its mask from a table filled for this search (`?` bits plus its own positions);
 * full masks for every distinct non-ASCII code point would take (distinct * k / 32) words, quadratic
 * in the piece, so only those seen DENSE_FROM times or more have one (at most k / 32 of them), and a
 * rarer one sets its few positions back after the state is masked by `?`.
 */
function findWild(piece: WildPiece, text: Int32Array, from: number, to: number): number {
  const { points, words, any, ascii, dense, sparse } = piece;
  const k = points.length;
  const table = new Uint32Array(TABLE_SIZE * words);
  for (let c = 0; c < TABLE_SIZE; c++) table.set(any, c * words);
  for (const [point, positions] of ascii) {
    for (const i of positions) table[point * words + (i >> 5)] |= 1 << (i & 31);
  }

  const topWord = (k - 1) >> 5;
  const topBit = 1 << ((k - 1) & 31);
  if (words === 1) return findWildShort(piece, table, topBit, text, from, to);
  const state = new Uint32Array(words);
  const kept: number[] = [];
  for (let i = from; i < to; i++) {
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const value = state[w];
      state[w] = (value << 1) | carry;
      carry = value >>> 31;
    }
    const point = text[i];
    if (point < TABLE_SIZE) {
      const base = point * words;
      for (let w = 0; w < words; w++) state[w] &= table[base + w];
    } else {
      const mask = dense.get(point);
      if (mask) {
        for (let w = 0; w < words; w++) state[w] &= mask[w];
      } else {
        kept.length = 0;
        for (const p of sparse.get(point) ?? []) {
          if ((state[p >> 5] & (1 << (p & 31))) !== 0) kept.push(p);
        }
        for (let w = 0; w < words; w++) state[w] &= any[w];
        for (const p of kept) state[p >> 5] |= 1 << (p & 31);
      }
    }
    if ((state[topWord] & topBit) !== 0) return i - k + 1;
  }
  return -1;
}

/** findWild for a piece of at most 32 code points: the state is one number. */
function findWildShort(
  { points, any, dense, sparse }: WildPiece,
  table: Uint32Array,
  topBit: number,
  text: Int32Array,
  from: number,
  to: number,
): number {
  const k = points.length;
  const anyBits = any[0];
  let state = 0;
  for (let i = from; i < to; i++) {
    const point = text[i];
    const shifted = ((state << 1) | 1) >>> 0;
    if (point < TABLE_SIZE) {
      state = shifted & table[point];
    } else {
      const mask = dense.get(point);
      if (mask) state = shifted & mask[0];
      else {
        state = shifted & anyBits;
        for (const p of sparse.get(point) ?? []) state |= shifted & (1 << p);
      }
    }
    if ((state & topBit) !== 0) return i - k + 1;
  }
  return -1;
}
