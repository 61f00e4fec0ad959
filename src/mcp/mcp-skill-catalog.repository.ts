// The reads behind the MCP Skills extension: a user's readable skills one page at a time in the
// listing's order, a skill by scope and name, and versions with their manifests.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DEFAULT_NAMESPACE } from '../access';
import type { ManifestFile } from '../package/manifest';
import { SkillEntity } from '../skills/skill.entity';
import { latestFollowableSql } from '../skills/skills.repository';
import { SKILL_MAX_BYTES, SKILL_MAX_RESOURCES } from './skill-entries';
import type { ListKey } from './skill-pages';
import type { SkillScope } from './skill-uri';

/** A skill at one version, with what its entry is made of. */
export interface CatalogRow {
  skillId: number;
  name: string;
  namespace: string;
  isPublic: boolean;
  version: number;
  manifest: ManifestFile[];
  frontmatter: Record<string, unknown>;
}

/** Who lists: their personal skills, these groups (every group for admins), and public skills. */
export interface CatalogReader {
  userId: number;
  groups: string[] | 'all';
}

interface RawRow {
  skill_id: number;
  name: string;
  namespace: string;
  is_public: boolean;
  version: number;
  manifest: ManifestFile[] | string;
  frontmatter: Record<string, unknown> | string;
}

// Names and namespaces compare by bytes on every database, whatever its collation, so that the
// keyset of a cursor and the order of a page agree.
const RANK = `(CASE WHEN s.is_public THEN 2 WHEN s.namespace = '${DEFAULT_NAMESPACE}' THEN 0 ELSE 1 END)`;
const ORDER = `s.name COLLATE "C", ${RANK}, s.namespace COLLATE "C"`;
const WITHIN_LIMITS = `v.file_count <= ${SKILL_MAX_RESOURCES}
  AND (SELECT coalesce(sum((f->>'size')::bigint), 0) FROM jsonb_array_elements(v.manifest) f) <= ${SKILL_MAX_BYTES}`;

function json<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

function toRow(raw: RawRow): CatalogRow {
  return {
    skillId: Number(raw.skill_id),
    name: raw.name,
    namespace: raw.namespace,
    isPublic: raw.is_public,
    version: Number(raw.version),
    manifest: json(raw.manifest),
    frontmatter: json(raw.frontmatter),
  };
}

@Injectable()
export class McpSkillCatalogRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Up to `limit` active skills `reader` may read at their latest versions, within the
   * extension's limits, after `after` in the listing's order. Another user's personal skills have
   * no URI (`default` is the caller's own), so admins list only their own among those.
   */
  async listReadable(reader: CatalogReader, after: ListKey | null, limit: number): Promise<CatalogRow[]> {
    const params: unknown[] = [reader.userId];
    const readable =
      reader.groups === 'all'
        ? `(s.is_public OR s.namespace <> '${DEFAULT_NAMESPACE}' OR s.owner_user_id = $1)`
        : `(s.is_public OR (s.namespace = '${DEFAULT_NAMESPACE}' AND s.owner_user_id = $1) OR s.namespace = ANY($${params.push(reader.groups)}))`;
    let keyset = '';
    if (after) {
      const at = params.push(after.name, after.rank, after.namespace);
      keyset = `AND (s.name COLLATE "C", ${RANK}, s.namespace COLLATE "C") > ($${at - 2} COLLATE "C", $${at - 1}::int, $${at} COLLATE "C")`;
    }
    const rows: RawRow[] = await this.db.query(
      `SELECT s.id AS skill_id, s.name, s.namespace, s.is_public, v.version, v.manifest, v.frontmatter
         FROM skills s
         JOIN skill_versions v ON v.skill_id = s.id AND v.version = ${latestFollowableSql('s')}
        WHERE s.deleted_at IS NULL AND ${readable} AND ${WITHIN_LIMITS} ${keyset}
        ORDER BY ${ORDER}
        LIMIT $${params.push(limit)}`,
      params,
    );
    return rows.map(toRow);
  }

  /**
   * The latest version of `skill` as refs follow it, the newest active or deprecated one
   * (docs/resolution.md#version-lifecycle), or null when every version is yanked or revoked: then
   * the skill is not served over MCP at all (docs/mcp-skills.md#revoked-versions).
   */
  async followableVersionOf(skill: SkillEntity): Promise<number | null> {
    const rows: Array<{ version: number | null }> = await this.db.query(
      `SELECT ${latestFollowableSql('s')} AS version FROM skills s WHERE s.id = $1`,
      [skill.id],
    );
    const version = rows[0]?.version;
    return version === null || version === undefined ? null : Number(version);
  }

  /** The active skill of that name in that scope (`personal`: the one `userId` owns), if any. */
  findActive(scope: SkillScope, name: string, userId: number): Promise<SkillEntity | null> {
    const qb = this.db.manager
      .createQueryBuilder(SkillEntity, 's')
      .where('s.deleted_at IS NULL AND s.name = :name', { name });
    switch (scope.kind) {
      case 'public':
        qb.andWhere('s.is_public');
        break;
      case 'personal':
        qb.andWhere('NOT s.is_public AND s.namespace = :ns AND s.owner_user_id = :userId', {
          ns: DEFAULT_NAMESPACE,
          userId,
        });
        break;
      case 'group':
        qb.andWhere('s.namespace = :ns', { ns: scope.namespace });
        break;
    }
    return qb.getOne();
  }

  findById(id: number): Promise<SkillEntity | null> {
    return this.db.manager.findOneBy(SkillEntity, { id });
  }

  /**
   * These versions (skill id and number), with their skills' names and scopes; missing and
   * revoked ones left out: nothing of a revoked version is served over MCP, whoever asks and
   * whatever led to it (docs/mcp-skills.md#revoked-versions).
   */
  async versions(refs: ReadonlyArray<{ skillId: number; version: number }>): Promise<CatalogRow[]> {
    if (refs.length === 0) return [];
    const rows: RawRow[] = await this.db.query(
      `SELECT s.id AS skill_id, s.name, s.namespace, s.is_public, v.version, v.manifest, v.frontmatter
         FROM unnest($1::int[], $2::int[]) AS r(skill_id, version)
         JOIN skill_versions v ON v.skill_id = r.skill_id AND v.version = r.version
         JOIN skills s ON s.id = v.skill_id
        WHERE v.status <> 'revoked'`,
      [refs.map((r) => r.skillId), refs.map((r) => r.version)],
    );
    return rows.map(toRow);
  }
}
