// What a search query may be (docs/search.md#limits), counted on the text search works on: after
// Unicode normalisation (NFKC) and lower-casing, which can make one character six (`㌖` is
// `キロメートル`). One rule for GET /api/skills/search and the MCP tool find_skills. Pure.

/** A query is 1 to this many characters (code points) once normalised. */
export const MAX_QUERY_CHARS = 256;
/** A query holds at most this many distinct words once normalised. */
export const MAX_QUERY_WORDS = 16;
/**
 * Raw input longer than this (UTF-16 code units) is refused before it is normalised, so the
 * normalisation itself is bounded. NFKC joins at most six units into one character, so this many
 * units are at least 341 characters once normalised: no query that fits MAX_QUERY_CHARS is this long.
 */
export const MAX_RAW_QUERY_UNITS = 2048;
/** Only words of at most this many characters get typo or prefix variants. */
export const MAX_VARIANT_WORD_CHARS = 32;

/** Text PostgreSQL can hold: no U+0000, and surrogates only in pairs. */
// eslint-disable-next-line no-control-regex
const TEXT = /^(?:[^\u0000\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;

/** The text search works on: NFKC, then lower case. */
export function normalizeQuery(q: string): string {
  return q.normalize('NFKC').toLowerCase();
}

/** The distinct words of normalised text, in order: runs of letters and digits (`pdf-forms` is two). */
export function distinctWords(normalized: string): string[] {
  return [...new Set(normalized.match(/[\p{L}\p{N}]+/gu) ?? [])];
}

/**
 * Every rule `q` breaks, as messages naming `field` (`q` on HTTP, `query` on MCP); none when it is
 * a query. A query with no words (`   `, `!!!`) is a query: it finds nothing. Work is linear in the
 * length of `q` and never more than MAX_RAW_QUERY_UNITS units are normalised.
 */
export function searchQueryProblems(q: string, field = 'q'): string[] {
  const length = `${field} must be 1-${MAX_QUERY_CHARS} characters after Unicode normalisation (NFKC) and lower-casing`;
  if (q.length === 0) return [length];
  if (q.length > MAX_RAW_QUERY_UNITS) return [`${length}; it has over ${MAX_RAW_QUERY_UNITS} before`];
  if (!TEXT.test(q)) return [`${field} must not contain U+0000 or unpaired surrogates`];
  const normalized = normalizeQuery(q);
  const problems: string[] = [];
  const chars = codePoints(normalized);
  if (chars > MAX_QUERY_CHARS) problems.push(`${length}; it has ${chars}`);
  const words = distinctWords(normalized).length;
  if (words > MAX_QUERY_WORDS) {
    problems.push(`${field} must hold at most ${MAX_QUERY_WORDS} distinct words after normalisation; it has ${words}`);
  }
  return problems;
}

/** Code points of well-formed text: every code unit but the second of a surrogate pair. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) count++;
  }
  return count;
}
