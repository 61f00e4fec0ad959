import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { AuditDetails, recordAudit } from '../common/audit/audit-log';
import { DomainError } from '../common/errors/domain-error';
import { deleteSearchDocument, writeSearchDocument } from './search/search-document';
import { DEFAULT_NAMESPACE, readableScopeSql } from '../access';
import { SkillVersionEntity, VersionSource } from './skill-version.entity';
import { SkillEntity } from './skill.entity';
import type { Requires } from '../policy';
import type { FileOffset, ManifestFile } from '../package/inspect-package';
import { holdBytesShared } from '../storage/blob-locks';
import { PreparedStatement, queryPrepared } from '../database/prepared-query';
import type { VersionStatus } from '../resolver';

export interface SkillWithLatest {
  skill: SkillEntity;
  latest: SkillVersionEntity;
  /** The version each tag points at. */
  tags: Record<string, number>;
}

/** The statuses of the versions refs follow, as an SQL list (lifecycle.ts: isFollowable). */
export const FOLLOWABLE_STATUSES_SQL = `('active', 'deprecated')`;

/**
 * The number of the newest active or deprecated version of skill `alias` (lifecycle.isFollowable),
 * null when there is none: what search and MCP listings show (docs/resolution.md#version-lifecycle).
 * Newest first down the primary key, so it reads the versions from the top until one qualifies
 * (one row for nearly every skill) instead of aggregating them all.
 */
export function latestFollowableSql(alias: string): string {
  return `(SELECT f.version FROM skill_versions f
            WHERE f.skill_id = ${alias}.id AND f.status IN ${FOLLOWABLE_STATUSES_SQL}
            ORDER BY f.version DESC LIMIT 1)`;
}

/** The same, else the newest version: what a skill's answers show as latest and reads default to. */
export function latestVersionSql(alias: string): string {
  return `COALESCE(${latestFollowableSql(alias)}, ${alias}.latest_version)`;
}

/** The columns of a version that answers show (not its manifest, frontmatter or SKILL.md). */
const VERSION_COLUMNS = `v.skill_id, v.version, v.content_hash, v.revision, v.size, v.file_count, v.allowed_tools,
       v.requires, v.created_at AS version_created_at, v.status, v.status_message, v.status_changed_at, v.source`;

/**
 * Skills `$1` (ids) with their latest versions and tags, one row each, in one statement: the
 * version by the primary key at latestVersionSql, the tags as one JSON object.
 */
/** Skills with their latest version and their tags, one row each, for the skills `condition` (on `s`) keeps. */
function withLatestSql(condition: string): string {
  return `
  SELECT s.id, s.name, s.namespace, s.is_public, s.owner_user_id, s.created_by_user_id, s.description,
         s.latest_version, s.created_at, s.updated_at, s.deleted_at, ${VERSION_COLUMNS},
         (SELECT json_object_agg(t.tag, t.version ORDER BY t.tag) FROM skill_tags t WHERE t.skill_id = s.id) AS tags
    FROM skills s
    JOIN skill_versions v ON v.skill_id = s.id AND v.version = ${latestVersionSql('s')}
   WHERE ${condition}`;
}

/** The skills of the ids in $1. */
const WITH_LATEST_SQL = withLatestSql('s.id = ANY($1::int[])');

/** One skill by id: the one-row read's only statement. */
const SKILL_WITH_LATEST: PreparedStatement = { name: 'skill_with_latest', text: withLatestSql('s.id = $1') };

/** A `skills` row as raw SQL returns it. */
export interface SkillRow {
  id: number;
  name: string;
  namespace: string;
  is_public: boolean;
  owner_user_id: number | null;
  created_by_user_id: number;
  description: string;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** The entity of a `skills` row read with raw SQL. */
export function skillOfRow(row: SkillRow): SkillEntity {
  return Object.assign(new SkillEntity(), {
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    isPublic: row.is_public,
    ownerUserId: row.owner_user_id,
    createdByUserId: row.created_by_user_id,
    description: row.description,
    latestVersion: row.latest_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  });
}

interface WithLatestRow extends SkillRow {
  skill_id: number;
  version: number;
  content_hash: string;
  revision: string;
  size: number;
  file_count: number;
  allowed_tools: string[] | null;
  requires: Requires;
  status: VersionStatus;
  status_message: string | null;
  status_changed_at: Date | null;
  source: VersionSource | null;
  tags: Record<string, number> | null;
  /** The version's creation time (the skill's is `created_at`). */
  version_created_at: Date;
}

export interface NewVersion {
  /** Bytes of the stored zip, which the store holds already (docs/storage.md#publish). */
  size: number;
  contentHash: string;
  fileOffsets: FileOffset[];
  revision: string;
  fileCount: number;
  manifest: ManifestFile[];
  frontmatter: object;
  skillMd: string;
  allowedTools: string[] | null;
  requires: Requires;
  description: string;
  createdByUserId: number;
  /** Where the files came from when imported from git (docs/publishing.md#provenance); null for uploads. */
  source: VersionSource | null;
}

/**
 * More writes of the publishing feature in the publish's own transaction, after the skill and its
 * version (or, for unchanged files, after finding nothing to write): `created` tells which.
 */
export type PublishedAlso = (tx: EntityManager, skill: SkillEntity, created: boolean) => Promise<void>;

export interface NewSkill {
  name: string;
  namespace: string;
  isPublic: boolean;
  ownerUserId: number | null;
}

export interface SkillListFilter {
  /** Who reads: their personal skills, these groups (or every group), and public skills. */
  readerUserId: number;
  readableGroups: string[] | 'all';
  namespace?: string;
  isPublic?: boolean;
  name?: string;
  q?: string;
  afterId?: number;
  limit: number;
}

@Injectable()
export class SkillsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  findById(id: number): Promise<SkillEntity | null> {
    return this.db.manager.findOneBy(SkillEntity, { id });
  }

  /** A version with its SKILL.md text, which plain reads leave out. */
  findVersionWithSkillMd(skillId: number, version: number): Promise<SkillVersionEntity | null> {
    return this.db.manager
      .createQueryBuilder(SkillVersionEntity, 'v')
      .addSelect('v.skillMd')
      .where('v.skill_id = :skillId AND v.version = :version', { skillId, version })
      .getOne();
  }

  /** The active skill of `name` in one scope (a personal scope is its owner's), if any. */
  findActiveInScope(scope: NewSkill & { name: string }): Promise<SkillEntity | null> {
    return this.db.manager.findOneBy(SkillEntity, {
      name: scope.name,
      namespace: scope.namespace,
      isPublic: scope.isPublic,
      deletedAt: IsNull(),
      ...(scope.isPublic || scope.namespace !== DEFAULT_NAMESPACE ? {} : { ownerUserId: scope.ownerUserId! }),
    });
  }

  /** Newest first, versions below `before` when given; `limit + 1` rows to tell if more exist. */
  listVersions(skillId: number, before: number | undefined, limit: number): Promise<SkillVersionEntity[]> {
    const qb = this.db.manager
      .createQueryBuilder(SkillVersionEntity, 'v')
      .where('v.skill_id = :skillId', { skillId })
      .orderBy('v.version', 'DESC')
      .limit(limit + 1);
    if (before !== undefined) qb.andWhere('v.version < :before', { before });
    return qb.getMany();
  }

  /** Active skills the reader may see, by id, with their latest versions; `limit + 1` rows. */
  async list(filter: SkillListFilter): Promise<SkillWithLatest[]> {
    const qb = this.db.manager
      .createQueryBuilder(SkillEntity, 's')
      .where('s.deleted_at IS NULL')
      .orderBy('s.id', 'ASC')
      .limit(filter.limit + 1);
    if (filter.readableGroups !== 'all') {
      qb.andWhere(readableScopeSql('s', ':reader', ':groups'), {
        reader: filter.readerUserId,
        groups: filter.readableGroups,
      });
    }
    if (filter.namespace !== undefined) qb.andWhere('s.namespace = :namespace', { namespace: filter.namespace });
    if (filter.isPublic !== undefined) qb.andWhere('s.is_public = :isPublic', { isPublic: filter.isPublic });
    if (filter.name !== undefined) qb.andWhere('s.name = :name', { name: filter.name });
    if (filter.q !== undefined) {
      // strpos: a literal substring, so % and _ in the query mean themselves.
      qb.andWhere('(strpos(lower(s.name), lower(:q)) > 0 OR strpos(lower(s.description), lower(:q)) > 0)', {
        q: filter.q,
      });
    }
    if (filter.afterId !== undefined) qb.andWhere('s.id > :afterId', { afterId: filter.afterId });
    const skills = await qb.getMany();
    return this.withLatest(skills);
  }

  async findWithLatest(id: number): Promise<SkillWithLatest | null> {
    const [row] = await queryPrepared<WithLatestRow>(this.db, SKILL_WITH_LATEST, [id]);
    return row ? withLatestOf(row) : null;
  }

  /**
   * Version 1 of a new skill and the skill row, in one transaction. `bytesKept` runs in it first,
   * under the stored bytes' lock (storage/blob-locks.ts): it makes sure the bytes are in the store.
   */
  createSkill(
    skill: NewSkill,
    version: NewVersion,
    bytesKept: BytesKept,
    also?: PublishedAlso,
  ): Promise<SkillWithLatest> {
    return this.db.transaction(async (tx) => {
      await keepBytes(tx, bytesKept);
      const saved = await tx.save(
        tx.create(SkillEntity, {
          ...skill,
          createdByUserId: version.createdByUserId,
          description: version.description,
          latestVersion: 1,
        }),
      );
      const latest = await this.insertVersion(tx, saved.id, 1, version);
      await writeSearchDocument(tx, { ...searchScope(saved), skillId: saved.id, version: 1, ...searchText(version) });
      await recordAudit(tx, {
        type: 'skill',
        verb: 'create',
        id: saved.id,
        namespace: saved.namespace,
        details: { name: saved.name, is_public: saved.isPublic, ...versionDetails(latest) },
      });
      await also?.(tx, saved, true);
      return { skill: saved, latest, tags: {} };
    });
  }

  /**
   * Version N+1 under the skill's row lock, so concurrent uploads get consecutive numbers; the same
   * files as the latest version (the same revision) create nothing (`created: false`).
   */
  addVersion(
    skillId: number,
    version: NewVersion,
    bytesKept: BytesKept,
    also?: PublishedAlso,
  ): Promise<SkillWithLatest & { created: boolean }> {
    return this.db.transaction(async (tx) => {
      const skill = await tx.findOne(SkillEntity, { where: { id: skillId }, lock: { mode: 'pessimistic_write' } });
      if (!skill || skill.deletedAt) throw DomainError.notFound('Skill not found');
      const current = await tx.findOneByOrFail(SkillVersionEntity, { skillId, version: skill.latestVersion });
      if (current.revision === version.revision) {
        const [unchanged] = await this.withLatest([skill], tx);
        await also?.(tx, skill, false);
        return { ...unchanged, created: false };
      }
      await keepBytes(tx, bytesKept);
      const latest = await this.insertVersion(tx, skillId, skill.latestVersion + 1, version);
      await tx.update(
        SkillEntity,
        { id: skillId },
        { latestVersion: latest.version, description: version.description, updatedAt: () => 'now()' },
      );
      const updated = await tx.findOneByOrFail(SkillEntity, { id: skillId });
      await writeSearchDocument(tx, {
        ...searchScope(skill),
        skillId,
        version: latest.version,
        ...searchText(version),
      });
      await recordAudit(tx, {
        type: 'skill_version',
        verb: 'create',
        id: skillId,
        namespace: skill.namespace,
        details: { name: skill.name, ...versionDetails(latest) },
      });
      await also?.(tx, updated, true);
      return {
        skill: updated,
        latest,
        tags: await this.tagsOf([skillId], tx).then((t) => t.get(skillId) ?? {}),
        created: true,
      };
    });
  }

  /**
   * Soft delete: the row and its versions stay, the name is free again in its scope. `details`
   * go to the audit event (`force` and the referrers a forced delete left unresolved).
   */
  async softDelete(skill: SkillEntity, details: AuditDetails): Promise<void> {
    await this.db.transaction(async (tx) => {
      const result = await tx.update(SkillEntity, { id: skill.id, deletedAt: IsNull() }, { deletedAt: () => 'now()' });
      if (!result.affected) return;
      await deleteSearchDocument(tx, skill.id);
      await recordAudit(tx, {
        type: 'skill',
        verb: 'delete',
        id: skill.id,
        namespace: skill.namespace,
        details: { name: skill.name, is_public: skill.isPublic, ...details },
      });
      await removeBindings(tx, skill);
    });
  }

  private async insertVersion(
    tx: EntityManager,
    skillId: number,
    number: number,
    v: NewVersion,
  ): Promise<SkillVersionEntity> {
    return tx.save(
      tx.create(SkillVersionEntity, {
        skillId,
        version: number,
        contentHash: v.contentHash,
        revision: v.revision,
        size: v.size,
        fileCount: v.fileCount,
        fileOffsets: v.fileOffsets,
        manifest: v.manifest,
        frontmatter: v.frontmatter,
        skillMd: v.skillMd,
        allowedTools: v.allowedTools,
        requires: v.requires,
        createdByUserId: v.createdByUserId,
        source: v.source,
      }),
    );
  }

  /** The version reads default to: the newest active or deprecated one, else the newest (latestVersionSql). */
  async latestVersionOf(skill: SkillEntity): Promise<number> {
    const rows: Array<{ version: number }> = await this.db.query(
      `SELECT ${latestVersionSql('s')} AS version FROM skills s WHERE s.id = $1`,
      [skill.id],
    );
    return rows[0]?.version ?? skill.latestVersion;
  }

  /** The tags of each skill: version by tag name. */
  async tagsOf(
    skillIds: number[],
    manager: EntityManager = this.db.manager,
  ): Promise<Map<number, Record<string, number>>> {
    const rows: Array<{ skill_id: number; tag: string; version: number }> = await manager.query(
      'SELECT skill_id, tag, version FROM skill_tags WHERE skill_id = ANY($1) ORDER BY skill_id, tag',
      [skillIds],
    );
    const tags = new Map<number, Record<string, number>>();
    for (const row of rows) {
      const of = tags.get(row.skill_id) ?? {};
      of[row.tag] = row.version;
      tags.set(row.skill_id, of);
    }
    return tags;
  }

  /** `skills` with their latest versions and tags, in their order. */
  private async withLatest(
    skills: SkillEntity[],
    manager: EntityManager = this.db.manager,
  ): Promise<SkillWithLatest[]> {
    if (skills.length === 0) return [];
    const rows: WithLatestRow[] = await manager.query(WITH_LATEST_SQL, [skills.map((s) => s.id)]);
    const byId = new Map(rows.map((row) => [row.id, withLatestOf(row)]));
    return skills.map((skill) => ({ ...byId.get(skill.id)!, skill }));
  }
}

/** Makes sure a version's bytes are in the store, in its transaction `tx` (docs/storage.md#publish). */
export type BytesKept = (tx: EntityManager) => Promise<void>;

async function keepBytes(tx: EntityManager, bytesKept: BytesKept): Promise<void> {
  await holdBytesShared(tx);
  await bytesKept(tx);
}

function withLatestOf(row: WithLatestRow): SkillWithLatest {
  const skill = skillOfRow(row);
  const latest = Object.assign(new SkillVersionEntity(), {
    skillId: row.skill_id,
    version: row.version,
    contentHash: row.content_hash,
    revision: row.revision,
    size: row.size,
    fileCount: row.file_count,
    allowedTools: row.allowed_tools,
    requires: row.requires,
    createdAt: row.version_created_at,
    status: row.status,
    statusMessage: row.status_message,
    statusChangedAt: row.status_changed_at,
    source: row.source,
  });
  return { skill, latest, tags: row.tags ?? {} };
}

function searchScope(skill: SkillEntity): Pick<SkillEntity, 'name' | 'namespace' | 'isPublic' | 'ownerUserId'> {
  return { name: skill.name, namespace: skill.namespace, isPublic: skill.isPublic, ownerUserId: skill.ownerUserId };
}

function searchText(version: NewVersion): { description: string; skillMd: string } {
  return { description: version.description, skillMd: version.skillMd };
}

function versionDetails(version: SkillVersionEntity): AuditDetails {
  return { version: version.version, content_hash: version.contentHash, revision: version.revision };
}

/**
 * A deleted skill leaves no binding (docs/resolution.md#skill-bindings): each is removed in the
 * delete's transaction with its own audit event. The update above holds the skill's row, so a
 * binding written meanwhile waits for it and then finds the skill gone.
 */
async function removeBindings(tx: EntityManager, skill: SkillEntity): Promise<void> {
  const rows: Array<{ id: number; user_id: number | null; group_id: number | null; group_name: string | null }> =
    await tx.query(
      `WITH gone AS (DELETE FROM skill_bindings WHERE skill_id = $1 RETURNING id, user_id, group_id)
       SELECT gone.id, gone.user_id, gone.group_id, g.name AS group_name
         FROM gone LEFT JOIN groups g ON g.id = gone.group_id ORDER BY gone.id`,
      [skill.id],
    );
  for (const r of rows) {
    await recordAudit(tx, {
      type: 'skill_binding',
      verb: 'delete',
      id: r.id,
      namespace: r.group_name,
      details: {
        skill_id: skill.id,
        name: skill.name,
        target_type: r.user_id !== null ? 'user' : 'group',
        target_id: r.user_id ?? r.group_id,
        skill_deleted: true,
      },
    });
  }
}
