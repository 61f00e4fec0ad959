// Ranked search over `skill_search` (docs/search.md), in one statement that runs the same on PGlite
// and on a server. docs/search.md#score states the formula; search-terms.ts makes the terms.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PreparedStatement, queryWithLocalSettings } from '../../database/prepared-query';
import { readableScopeSql } from '../../access';
import { readableScopeKeys } from './search-document';
import { buildSearchQuery, SearchQuery, StemCache, TermStems } from './search-query';
import { MAX_QUERY_WORDS } from './search-query-rule';
import { SearchTerm } from './search-terms';
import { FOLLOWABLE_STATUSES_SQL } from '../skills.repository';

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

/** What a term weighs, by the best place it matched (docs/search.md: name, then description, then body). */
export const WEIGHTS = { nameExact: 1.0, namePrefix: 0.8, description: 0.7, nameTypo: 0.6, body: 0.5 } as const;
/** The share of the score that does not depend on how much of the name the query covers. */
export const BASE = 0.75;
/** The best score of a skill that matched no term in its name or description. */
export const BODY_ONLY_MAX = WEIGHTS.body * BASE;

const ORDER = 'score DESC, name, scope_rank, skill_id';

/** The English stems of each term's forms, and whether the word is a stop word. */
const STEMS_SQL = `
  SELECT length(to_tsvector('english', t.word)) > 0 AS searchable,
         tsvector_to_array(to_tsvector('english', t.forms)) AS stems
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(word, forms, ord)
   ORDER BY t.ord`;

/** Term `i`'s tsquery (1-based), its prefix tsquery (NULL without one), and its typo variants. */
const exact = (i: number): string => `($1::tsquery[])[${i}]`;
const prefix = (i: number): string => `($2::tsquery[])[${i}]`;
const variants = (i: number): string => `($4::text[])[($3::int[])[${i}]:($3::int[])[${i + 1}] - 1]`;

/** `part(i)` for the terms 1..n, joined by `op`: the tsqueries of the terms combined in the statement. */
function eachTerm(n: number, part: (i: number) => string, op: string): string {
  return `(${Array.from({ length: n }, (_, i) => part(i + 1)).join(` ${op} `)})`;
}

/**
 * The score of the skill `s` for `n` terms: each term weighs what it matched best (WEIGHTS); the
 * score is their mean times BASE + (1 - BASE) x the share of the name's words that terms matched
 * (at most 1), rounded to 4 places. Numeric arithmetic, so it repeats to the last digit. Written out
 * per term (the statement exists once per number of terms) so that nothing but expressions runs
 * per candidate; `($1::tsquery[])[i]` is a constant once the parameters are bound.
 */
function scoreSql(n: number): string {
  const weights: string[] = [];
  const nameHits: string[] = [];
  for (let i = 1; i <= n; i++) {
    weights.push(`CASE WHEN s.name_vector @@ ${exact(i)} THEN ${WEIGHTS.nameExact}
                       WHEN s.name_vector @@ ${prefix(i)} THEN ${WEIGHTS.namePrefix}
                       WHEN s.description_vector @@ ${exact(i)} THEN ${WEIGHTS.description}
                       WHEN s.name_variants && ${variants(i)} THEN ${WEIGHTS.nameTypo}
                       WHEN s.body_vector @@ ${exact(i)} THEN ${WEIGHTS.body} ELSE 0 END`);
    nameHits.push(`CASE WHEN s.name_vector @@ ${exact(i)} OR s.name_vector @@ ${prefix(i)}
                            OR s.name_variants && ${variants(i)} THEN 1 ELSE 0 END`);
  }
  return `round((${weights.join(' + ')}) / ${n}.0
                 * (${BASE} + ${1 - BASE} * least(1.0, (${nameHits.join(' + ')})::numeric / s.name_word_count)), 4)`;
}

/**
 * Some term in the name (a word, a prefix, a typo) or the description: GIN indexes find these. The
 * terms are combined here, in expressions of the parameters alone, which an index serves as it
 * would a literal; so each term's text is sent once.
 */
function strongMatchSql(n: number): string {
  const name = eachTerm(n, (i) => `${exact(i)} || coalesce(${prefix(i)}, ${exact(i)})`, '||');
  return `(s.name_vector @@ ${name} OR s.name_variants && $4::text[] OR s.description_vector @@ ${eachTerm(n, exact, '||')})`;
}

/** The body query: every term when $5 is true, else any. */
function bodyMatchSql(n: number): string {
  return `s.body_vector @@ CASE WHEN $5::boolean THEN ${eachTerm(n, exact, '&&')} ELSE ${eachTerm(n, exact, '||')} END`;
}

/**
 * Only what the reader may read, and the list's filters. The scope key (an index) and the shared
 * readable-scope rule say the same thing; the key lets an index leave out what the reader may not
 * read before a row is fetched.
 */
const READABLE = `($8::text[] IS NULL OR (s.scope_key = ANY($9::text[]) AND ${readableScopeSql('s', '$7', '$8')}))
       AND ($10::text IS NULL OR s.namespace = $10)
       AND ($11::boolean IS NULL OR s.is_public = $11)`;

/**
 * Candidates are what the GIN indexes find: some term in the name (a word, a prefix, a typo) or the
 * description, or the body query. A skill that matched only in its body scores at most
 * BODY_ONLY_MAX x the share of terms it holds, so when min_score leaves no room for fewer, the body
 * query asks for every term (the default does) and the index intersects them; otherwise for any.
 * The readable-scope filter keeps candidates to what the reader may read before anything is ranked.
 * ($6, the number of terms, is in the text of the statement.)
 */
function searchSql(n: number): string {
  return `
  WITH ranked AS (
    SELECT s.skill_id, s.name,
           CASE WHEN s.is_public THEN 2 WHEN s.namespace = 'default' THEN 0 ELSE 1 END AS scope_rank,
           ${scoreSql(n)} AS score
      FROM skill_search s
     WHERE (${strongMatchSql(n)} OR ${bodyMatchSql(n)})
       AND ${READABLE}
       AND $6::int = ${n}
  ), top AS (
    SELECT * FROM ranked WHERE score >= $12 ORDER BY ${ORDER} LIMIT $13
  )
  SELECT k.id AS skill_id, k.name, k.description, k.namespace, k.is_public, v.version,
         v.content_hash,
         v.allowed_tools,
         top.score::float8 AS score
    FROM top
    JOIN skills k ON k.id = top.skill_id
    -- The latest version refs follow (docs/resolution.md#version-lifecycle, latestFollowableSql:
    -- the newest active or deprecated one); none: not a result. Fetched per hit, which the planner
    -- plans in a fraction of the time a join on the subquery's maximum takes.
    CROSS JOIN LATERAL (SELECT f.version, f.content_hash, f.allowed_tools FROM skill_versions f
                         WHERE f.skill_id = top.skill_id AND f.status IN ${FOLLOWABLE_STATUSES_SQL}
                         ORDER BY f.version DESC LIMIT 1) v
   ORDER BY top.score DESC, top.name, top.scope_rank, top.skill_id`;
}

/**
 * Planner settings for the ranking statement. With few skills per scope, the planner reads the
 * reader's scopes through the scope-key index and matches every row's vectors (on PGlite at 10k
 * skills, 3.6 ms of a 3.9 ms run); as bitmaps, the GIN matches and the scopes are intersected
 * first (1.2 ms). With many skills it picks the bitmaps anyway, so nothing changes there.
 */
export const SEARCH_PLANNER_SETTINGS = ['enable_indexscan = off', 'plan_cache_mode = force_custom_plan'];

/**
 * One named statement per number of terms, parsed once per connection; `force_custom_plan` plans
 * it for each call's values, as an unnamed statement is (a generic plan cannot see which terms are
 * rare, and ran 48 ms against 10 ms at 100k skills). Parsing the statement was most of its cost on
 * the embedded database.
 */
const SEARCH_SQL: PreparedStatement[] = Array.from({ length: MAX_QUERY_WORDS + 1 }, (_, n) => ({
  name: `skill_search_rank_${n}`,
  text: n === 0 ? '' : searchSql(n),
}));

/** Runs SQL: the data source, a query runner, or a plain client (tests, the benchmark notes). */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

const STEM_CACHE_ENTRIES = 10_000;

@Injectable()
export class SkillSearchRepository {
  private readonly stems = new StemCache(STEM_CACHE_ENTRIES);

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The terms as tsqueries. Their stems come from PostgreSQL, so both databases stem alike, in
   * one short query for the words `cache` does not hold yet.
   */
  static async prepare(db: Queryable, terms: SearchTerm[], cache = new StemCache(0)): Promise<SearchQuery | null> {
    if (terms.length === 0) return null;
    const key = (t: SearchTerm): string => `${t.word}\u0000${t.forms.join(' ')}`;
    const known = new Map<string, TermStems>();
    for (const t of terms) {
      const hit = cache.get(key(t));
      if (hit) known.set(key(t), hit);
    }
    const missing = terms.filter((t) => !known.has(key(t)));
    if (missing.length) {
      const result = await db.query(STEMS_SQL, [missing.map((t) => t.word), missing.map((t) => t.forms.join(' '))]);
      // TypeORM answers the rows, pg a result holding them.
      const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as TermStems[];
      missing.forEach((t, i) => {
        const stems = { searchable: rows[i].searchable, stems: rows[i].stems };
        known.set(key(t), stems);
        cache.set(key(t), stems);
      });
    }
    return buildSearchQuery(
      terms,
      terms.map((t) => known.get(key(t))!),
    );
  }

  /**
   * The ranking statement and its parameters, also for EXPLAIN in tests and the benchmark notes.
   * Each value is bound once: the terms' tsqueries, and every variant in one array, term after
   * term, with where each term's variants begin.
   */
  static statement(filter: SearchFilter, query: SearchQuery): { sql: string; name: string; parameters: unknown[] } {
    const all = filter.readableGroups === 'all';
    const n = query.terms.length;
    // Weak candidates need every term in the body when min_score leaves no room for fewer (a score
    // that rounds up to min_score counts).
    const needed = Math.ceil(((filter.minScore - 0.00005) * n) / BODY_ONLY_MAX);
    const bounds = [1];
    for (const t of query.terms) bounds.push(bounds[bounds.length - 1] + t.variants.length);
    return {
      sql: SEARCH_SQL[n].text,
      name: SEARCH_SQL[n].name,
      parameters: [
        query.terms.map((t) => t.exact),
        query.terms.map((t) => t.prefix),
        bounds,
        query.terms.flatMap((t) => t.variants),
        needed >= n,
        n,
        filter.readerUserId,
        // null: every scope (admins)
        all ? null : filter.readableGroups,
        all ? null : readableScopeKeys(filter.readerUserId, filter.readableGroups as string[]),
        filter.namespace ?? null,
        filter.isPublic ?? null,
        filter.minScore,
        filter.limit,
      ],
    };
  }

  async search(filter: SearchFilter): Promise<SearchHit[]> {
    const query = await SkillSearchRepository.prepare(this.db, filter.terms, this.stems);
    if (!query) return [];
    const { sql, name, parameters } = SkillSearchRepository.statement(filter, query);
    return queryWithLocalSettings<SearchHit>(this.db, SEARCH_PLANNER_SETTINGS, { name, text: sql }, parameters);
  }
}
