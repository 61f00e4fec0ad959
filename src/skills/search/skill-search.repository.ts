// Ranked search over `skill_search` (CONTRACT §8.1), in one statement that runs the same on PGlite
// and on a server. The README states the formula; search-terms.ts makes the terms.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { readableScopeSql } from '../skill-scope.sql';
import { MIN_PREFIX_LENGTH, SearchTerm } from './search-terms';

export interface SearchFilter {
  terms: SearchTerm[];
  readerUserId: number;
  /** The groups whose skills the reader may read, or every group (admins). */
  readableGroups: string[] | 'all';
  namespace?: string;
  isPublic?: boolean;
  minScore: number;
  limit: number;
}

export interface SearchHit {
  skill_id: number;
  name: string;
  description: string;
  namespace: string;
  is_public: boolean;
  version: number;
  content_hash: string;
  allowed_tools: string[] | null;
  score: number;
}

/**
 * `term`: one row per query word that is not an English stop word, with the tsqueries it matches
 * by: `exact` (the word, its singular, and their English stems), `prefix` (name words it begins)
 * and its one-edit `variants`. Words are letters and digits only (search-terms.ts), so quoting them
 * as tsquery lexemes is safe.
 *
 * Candidates are the rows that some index finds for some term; the readable-scope filter applies to
 * them before anything is ranked or counted. Each term then weighs what it matched best: a name
 * word exactly 1.0, a name word it begins 0.8, the description 0.7, a name word within one edit
 * 0.6, the body 0.5. The score is the mean over terms, times 0.75 + 0.25 x the share of the name's
 * words that some term matched, rounded to 4 places.
 */
const SEARCH_SQL = searchSql();

function searchSql(): string {
  return `
  WITH term AS (
    SELECT (SELECT string_agg(quote_literal(l), ' | ')
              FROM (SELECT DISTINCT unnest(t.forms || tsvector_to_array(to_tsvector('english', array_to_string(t.forms, ' ')))) AS l) x
           )::tsquery AS exact,
           CASE WHEN t.prefix THEN (quote_literal(t.word) || ':*')::tsquery END AS prefix,
           nullif(t.variants, '{}') AS variants
      FROM jsonb_to_recordset($1::jsonb) AS t(word text, forms text[], variants text[], prefix boolean)
     WHERE length(to_tsvector('english', t.word)) > 0
  ), query AS (
    SELECT count(*) AS terms,
           (SELECT string_agg(exact::text, ' | ') FROM term)::tsquery AS exact,
           (SELECT string_agg(concat_ws(' | ', exact::text, prefix::text), ' | ') FROM term)::tsquery AS name,
           (SELECT array_agg(DISTINCT v) FROM term, unnest(term.variants) AS v) AS variants
      FROM term
  ), ranked AS (
    SELECT s.skill_id, s.name,
           CASE WHEN s.is_public THEN 2 WHEN s.namespace = 'default' THEN 0 ELSE 1 END AS scope_rank,
           round(m.total / (SELECT terms FROM query)
                 * (0.75 + 0.25 * least(1.0, m.name_terms::numeric / s.name_word_count)), 4) AS score
      FROM skill_search s
     CROSS JOIN LATERAL (
       SELECT sum(CASE WHEN e.name_exact THEN 1.0 WHEN e.name_prefix THEN 0.8 WHEN e.description THEN 0.7
                       WHEN e.name_typo THEN 0.6 WHEN s.body_vector @@ term.exact THEN 0.5 ELSE 0 END) AS total,
              count(*) FILTER (WHERE e.name_exact OR e.name_prefix OR e.name_typo) AS name_terms
         FROM term
        CROSS JOIN LATERAL (
          SELECT s.name_vector @@ term.exact AS name_exact,
                 coalesce(s.name_vector @@ term.prefix, false) AS name_prefix,
                 s.description_vector @@ term.exact AS description,
                 coalesce(s.name_variants && term.variants, false) AS name_typo
        ) e
     ) m
     WHERE (s.name_vector @@ (SELECT name FROM query)
            OR s.name_variants && (SELECT variants FROM query)
            OR s.description_vector @@ (SELECT exact FROM query)
            OR s.body_vector @@ (SELECT exact FROM query))
       AND ($3::text[] IS NULL OR ${readableScopeSql('s', '$2', '$3')})
       AND ($4::text IS NULL OR s.namespace = $4)
       AND ($5::boolean IS NULL OR s.is_public = $5)
  ), top AS (
    SELECT * FROM ranked WHERE score >= $6 ORDER BY score DESC, name, scope_rank, skill_id LIMIT $7
  )
  SELECT k.id AS skill_id, k.name, k.description, k.namespace, k.is_public, k.latest_version AS version,
         v.content_hash,
         NULL::jsonb AS allowed_tools, -- the tool policy of the version (CONTRACT §7.1): v.allowed_tools
         top.score::float8 AS score
    FROM top
    JOIN skills k ON k.id = top.skill_id
    JOIN skill_versions v ON v.skill_id = k.id AND v.version = k.latest_version
   ORDER BY top.score DESC, top.name, top.scope_rank, top.skill_id`;
}

@Injectable()
export class SkillSearchRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The SQL and its parameters, also for EXPLAIN in tests and in the benchmark notes. */
  static statement(filter: SearchFilter): { sql: string; parameters: unknown[] } {
    const terms = filter.terms.map((t) => ({
      word: t.word,
      forms: t.forms,
      variants: t.variants,
      prefix: Array.from(t.word).length >= MIN_PREFIX_LENGTH,
    }));
    return {
      sql: SEARCH_SQL,
      parameters: [
        JSON.stringify(terms),
        filter.readerUserId,
        // null: every scope (admins)
        filter.readableGroups === 'all' ? null : filter.readableGroups,
        filter.namespace ?? null,
        filter.isPublic ?? null,
        filter.minScore,
        filter.limit,
      ],
    };
  }

  async search(filter: SearchFilter): Promise<SearchHit[]> {
    if (filter.terms.length === 0) return [];
    const { sql, parameters } = SkillSearchRepository.statement(filter);
    return this.db.query<SearchHit[]>(sql, parameters);
  }
}
