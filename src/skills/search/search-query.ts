// The text-search queries of one search (docs/search.md), built from the query's terms and the
// English stems PostgreSQL gave them. Pure; the repository runs them.
import { SearchTerm } from './search-terms';

/** What PostgreSQL's `english` configuration made of one term. */
export interface TermStems {
  /** False for an English stop word ("the", "with"): it is no term. */
  searchable: boolean;
  /** The stems of the term's forms. */
  stems: string[];
}

export interface QueryTerm {
  /** tsquery: the forms of the word and their stems, any of them. */
  exact: string;
  /** tsquery: name words it begins, or null for words too short or too long (SearchTerm.prefix). */
  prefix: string | null;
  variants: string[];
}

/**
 * The terms a search ranks by, stop words left out. The statement combines them itself (some term
 * in the name, any or every term in the body), so each term's text is sent once.
 */
export interface SearchQuery {
  terms: QueryTerm[];
}

/** A lexeme quoted for tsquery syntax, whatever it holds. */
export function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** Null when no term is left (only stop words): nothing can match. */
export function buildSearchQuery(terms: SearchTerm[], stems: TermStems[]): SearchQuery | null {
  const kept: QueryTerm[] = [];
  terms.forEach((term, i) => {
    if (!stems[i]?.searchable) return;
    const lexemes = [...new Set([...term.forms, ...stems[i].stems])];
    kept.push({
      exact: lexemes.map(quoteLexeme).join(' | '),
      prefix: term.prefix ? `${quoteLexeme(term.word)}:*` : null,
      variants: term.variants,
    });
  });
  return kept.length === 0 ? null : { terms: kept };
}

/** Stems of words already asked for: `english` stems a word the same way every time. */
export class StemCache {
  private readonly entries = new Map<string, TermStems>();

  constructor(private readonly capacity: number) {}

  get(key: string): TermStems | undefined {
    const found = this.entries.get(key);
    if (found) {
      // Most recently used last, so the oldest is evicted first.
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }

  set(key: string, stems: TermStems): void {
    this.entries.set(key, stems);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
