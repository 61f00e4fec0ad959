// How text becomes search terms (docs/search.md), on both sides: the words of a query, and the words
// of a skill name with the one-edit variants that let a typo find them. Pure: the SQL that ranks
// (skill-search.repository.ts) receives these arrays; stemming is PostgreSQL's (`english`). What a
// query may be is search-query-rule.ts.
import { distinctWords, MAX_QUERY_WORDS, MAX_VARIANT_WORD_CHARS, normalizeQuery } from './search-query-rule';

/** Query words at least this long (in characters) also match name words within one edit. */
export const MIN_TYPO_LENGTH = 4;
/** Query words at least this long also match name words they begin. */
export const MIN_PREFIX_LENGTH = 3;
/** The SKILL.md body is searched up to this many characters. */
export const MAX_BODY_CHARS = 64 * 1024;

export interface SearchTerm {
  /** The word as the query holds it, lower-cased. */
  word: string;
  /** Forms that count as the same word before stemming: the word, and its singular when it ends in one `s`. */
  forms: string[];
  /**
   * The word and its one-deletion variants (see `wordVariants`): empty below MIN_TYPO_LENGTH and
   * above MAX_VARIANT_WORD_CHARS characters, so a term has at most 33 of at most 32 characters.
   */
  variants: string[];
  /** Whether the word also matches name words it begins: MIN_PREFIX_LENGTH to MAX_VARIANT_WORD_CHARS characters. */
  prefix: boolean;
}

/**
 * Runs of letters and digits, NFKC-normalised and lower-cased: `pdf-forms` and `PDF Forms` both give
 * `pdf`, `forms`. Punctuation only gives no word at all (and an empty answer). A query past
 * MAX_QUERY_WORDS distinct words is refused before it gets here; the cut only keeps this bounded.
 */
export function queryWords(q: string): string[] {
  return distinctWords(normalizeQuery(q)).slice(0, MAX_QUERY_WORDS);
}

export function searchTerms(q: string): SearchTerm[] {
  return queryWords(q).map((word) => {
    const chars = length(word);
    const forms = [word];
    // English stemming leaves vowel-less plurals alone ("pdfs", "csvs"); the singular is tried too.
    if (chars >= MIN_TYPO_LENGTH && /[^s]s$/.test(word)) forms.push(word.slice(0, -1));
    const varied = chars <= MAX_VARIANT_WORD_CHARS;
    return {
      word,
      forms,
      variants: varied && chars >= MIN_TYPO_LENGTH ? wordVariants(word) : [],
      prefix: varied && chars >= MIN_PREFIX_LENGTH,
    };
  });
}

/**
 * The word and, from MIN_TYPO_LENGTH characters up, every string made by deleting one character.
 * Two words share a variant when one is the other with a character inserted, deleted or replaced,
 * or two neighbours swapped (`dokcer`/`docker` share `docer`), so one equality lookup in an index
 * finds one-edit typos in words of any length. (Rarely, two words two edits apart share one too.)
 */
export function wordVariants(word: string): string[] {
  const chars = Array.from(word);
  const variants = new Set([word]);
  if (chars.length >= MIN_TYPO_LENGTH) {
    for (let i = 0; i < chars.length; i++) variants.add([...chars.slice(0, i), ...chars.slice(i + 1)].join(''));
  }
  return [...variants].sort();
}

/** The words of a skill name (`a-z0-9`, split on `-`). */
export function nameWords(name: string): string[] {
  return name.split('-').filter((w) => w !== '');
}

/** Every variant of every name word, sorted and unique: what the typo index holds for a skill. */
export function nameVariants(name: string): string[] {
  return [...new Set(nameWords(name).flatMap(wordVariants))].sort();
}

/** The part of SKILL.md after its frontmatter, cut to MAX_BODY_CHARS characters for the index. */
export function searchBody(skillMd: string): string {
  const text = skillMd.startsWith('\uFEFF') ? skillMd.slice(1) : skillMd;
  const match = /^---\r?\n(?:[^\n]*\n)*?---[ \t]*\r?(?:\n|$)/.exec(text);
  const body = match ? text.slice(match[0].length) : text;
  const chars = Array.from(body.slice(0, MAX_BODY_CHARS * 2));
  return chars.length > MAX_BODY_CHARS ? chars.slice(0, MAX_BODY_CHARS).join('') : chars.join('');
}

function length(word: string): number {
  return Array.from(word).length;
}
