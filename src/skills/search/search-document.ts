// The search document of a skill (one `skill_search` row per active skill): written in the same
// transaction as the publish or new version it describes, removed with the skill. Shared by the
// skills repository and the migration that indexed the skills stored before search existed.
import { nameVariants, nameWords, searchBody } from './search-terms';

export interface SearchDocumentInput {
  skillId: number;
  version: number;
  name: string;
  namespace: string;
  isPublic: boolean;
  ownerUserId: number | null;
  description: string;
  skillMd: string;
}

/**
 * One key per scope, so an index can keep a reader to their scopes: `public`, `user:<owner id>` for
 * personal skills, `group:<namespace>` for group skills.
 */
export function scopeKey(skill: Pick<SearchDocumentInput, 'isPublic' | 'namespace' | 'ownerUserId'>): string {
  if (skill.isPublic) return 'public';
  return skill.namespace === 'default' ? `user:${skill.ownerUserId}` : `group:${skill.namespace}`;
}

/** The scope keys a reader may read: public skills, their own, their readable groups'. */
export function readableScopeKeys(readerUserId: number, groups: string[]): string[] {
  return ['public', `user:${readerUserId}`, ...groups.map((g) => `group:${g}`)];
}

/** Something that runs SQL: an EntityManager or a QueryRunner. */
export interface Sql {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * The name counts as its words as written (`simple`) and as English stems, so `pdf-forms` is found
 * by `form`; the description and the body by English stems. Vectors are stripped of positions:
 * nothing ranks by proximity.
 */
const UPSERT = `
  INSERT INTO "skill_search" ("skill_id", "version", "namespace", "is_public", "owner_user_id", "scope_key", "name",
                              "name_word_count", "name_variants", "name_vector", "description_vector", "body_vector")
  VALUES ($1, $2, $3, $4, $5, $12, $6, $7, $8::text[],
          strip(to_tsvector('simple', $9) || to_tsvector('english', $9)),
          strip(to_tsvector('english', $10)),
          strip(to_tsvector('english', $11)))
  ON CONFLICT ("skill_id") DO UPDATE SET
    "version" = EXCLUDED."version",
    "description_vector" = EXCLUDED."description_vector",
    "body_vector" = EXCLUDED."body_vector"`;

/** The scope and name never change, so a new version only replaces what it can change. */
export async function writeSearchDocument(sql: Sql, doc: SearchDocumentInput): Promise<void> {
  const words = nameWords(doc.name);
  await sql.query(UPSERT, [
    doc.skillId,
    doc.version,
    doc.namespace,
    doc.isPublic,
    doc.ownerUserId,
    doc.name,
    words.length,
    nameVariants(doc.name),
    words.join(' '),
    doc.description,
    searchBody(doc.skillMd),
    scopeKey(doc),
  ]);
}

export async function deleteSearchDocument(sql: Sql, skillId: number): Promise<void> {
  await sql.query(`DELETE FROM "skill_search" WHERE "skill_id" = $1`, [skillId]);
}
