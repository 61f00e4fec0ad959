// The reads behind downloads and single files, and the purge of a revoked version's bytes
// (docs/storage.md). A read is one statement on one pool connection: the skill row with the version
// a read means (the one asked for, else the latest), so a download holds the database for one
// short checkout and never while its bytes travel (docs/storage.md#what-a-download-costs).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { recordAudit } from '../common/audit/audit-log';
import { DomainError } from '../common/errors/domain-error';
import { PreparedStatement, queryPrepared } from '../database/prepared-query';
import { packageKey } from '../storage/blob-keys';
import { holdBytesExclusive } from '../storage/blob-locks';
import type { BlobStore } from '../storage/blob-store';
import type { FileOffset, ManifestFile } from '../package/inspect-package';
import type { VersionStatus } from '../resolver';
import { SkillEntity } from './skill.entity';
import { latestVersionSql, SkillRow, skillOfRow } from './skills.repository';

/** What a download decides over: lifecycle, ETag, size. */
export interface VersionBytes {
  version: number;
  contentHash: string;
  size: number;
  status: VersionStatus;
  bytesPurgedAt: Date | null;
}

/** And what a single file is read by. */
export interface VersionFiles extends VersionBytes {
  manifest: ManifestFile[];
  fileOffsets: FileOffset[] | null;
}

/** A skill and the version a read means; `version` is null when the skill has no such version. */
export interface SkillVersionRow<V> {
  skill: SkillEntity;
  version: V | null;
}

const SKILL_COLUMNS = `s.id, s.name, s.namespace, s.is_public, s.owner_user_id, s.created_by_user_id, s.description,
       s.latest_version, s.created_at, s.updated_at, s.deleted_at`;
const BYTES_COLUMNS = `v.version, v.content_hash, v.size, v.status, v.bytes_purged_at`;

/** `$1` a skill id, `$2` a version or null for the latest; a row whenever the skill exists. */
function versionOfSkillSql(columns: string): string {
  return `SELECT ${SKILL_COLUMNS}, ${columns}
            FROM skills s
            LEFT JOIN skill_versions v ON v.skill_id = s.id AND v.version = COALESCE($2::int, ${latestVersionSql('s')})
           WHERE s.id = $1`;
}

const VERSION_BYTES: PreparedStatement = { name: 'skill_version_bytes', text: versionOfSkillSql(BYTES_COLUMNS) };
const VERSION_FILES: PreparedStatement = {
  name: 'skill_version_files',
  text: versionOfSkillSql(`${BYTES_COLUMNS}, v.manifest, v.file_offsets`),
};
const FILES_OF_VERSION: PreparedStatement = {
  name: 'version_files',
  text: `SELECT ${BYTES_COLUMNS}, v.manifest, v.file_offsets FROM skill_versions v WHERE v.skill_id = $1 AND v.version = $2`,
};

interface BytesRow {
  version: number | null;
  content_hash: string;
  size: number;
  status: VersionStatus;
  bytes_purged_at: Date | null;
  manifest?: ManifestFile[];
  file_offsets?: FileOffset[] | null;
}

type SkillBytesRow = BytesRow & SkillRow;

function bytesOf(row: BytesRow): VersionBytes {
  return {
    version: row.version!,
    contentHash: row.content_hash,
    size: row.size,
    status: row.status,
    bytesPurgedAt: row.bytes_purged_at,
  };
}

function filesOf(row: BytesRow): VersionFiles {
  return { ...bytesOf(row), manifest: row.manifest!, fileOffsets: row.file_offsets ?? null };
}

@Injectable()
export class SkillBytesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The skill and the version a download means (`version`, else the latest); null when no such skill. */
  async findVersionBytes(skillId: number, version: number | null): Promise<SkillVersionRow<VersionBytes> | null> {
    const [row] = await queryPrepared<SkillBytesRow>(this.db, VERSION_BYTES, [skillId, version]);
    return row ? { skill: skillOfRow(row), version: row.version === null ? null : bytesOf(row) } : null;
  }

  /** The same with the manifest and the file offsets, for single files. */
  async findVersionFiles(skillId: number, version: number | null): Promise<SkillVersionRow<VersionFiles> | null> {
    const [row] = await queryPrepared<SkillBytesRow>(this.db, VERSION_FILES, [skillId, version]);
    return row ? { skill: skillOfRow(row), version: row.version === null ? null : filesOf(row) } : null;
  }

  /** A version of a skill already read, for single files. */
  async findFiles(skillId: number, version: number): Promise<VersionFiles | null> {
    const [row] = await queryPrepared<BytesRow>(this.db, FILES_OF_VERSION, [skillId, version]);
    return row ? filesOf(row) : null;
  }

  /** The offsets of a version's files, where none were recorded (skill-files.service.ts). */
  async recordOffsets(skillId: number, version: number, offsets: FileOffset[]): Promise<void> {
    await this.db.query(
      'UPDATE skill_versions SET file_offsets = $3 WHERE skill_id = $1 AND version = $2 AND file_offsets IS NULL',
      [skillId, version, JSON.stringify(offsets)],
    );
  }

  /**
   * Deletes the stored bytes of `contentHash` from `store` unless a version (not purged) refers to
   * them, deciding under the bytes lock (storage/blob-locks.ts) so no version that refers to them
   * can commit meanwhile. True when deleted.
   */
  deleteIfUnreferenced(contentHash: string, store: BlobStore): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await holdBytesExclusive(tx);
      const [referred] = await tx.query<unknown[]>(
        'SELECT 1 FROM skill_versions WHERE content_hash = $1 AND bytes_purged_at IS NULL LIMIT 1',
        [contentHash],
      );
      if (referred) return false;
      await store.delete(packageKey(contentHash), tx);
      return true;
    });
  }

  /**
   * Marks a revoked version's bytes purged, audited, under the skill's row lock; answers whether any
   * other version still keeps the same bytes (then they stay in the store). 404 for no such
   * version, 409 VERSION_NOT_REVOKED for one that is not revoked; purging twice changes nothing.
   */
  markPurged(skill: SkillEntity, version: number): Promise<{ contentHash: string; shared: boolean }> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM skills WHERE id = $1 FOR UPDATE', [skill.id]);
      const [row] = await tx.query<
        Array<{ content_hash: string; status: VersionStatus; bytes_purged_at: Date | null }>
      >('SELECT content_hash, status, bytes_purged_at FROM skill_versions WHERE skill_id = $1 AND version = $2', [
        skill.id,
        version,
      ]);
      if (!row) throw DomainError.notFound('Version not found');
      if (row.status !== 'revoked') {
        throw new DomainError(
          'VERSION_NOT_REVOKED',
          `Version ${version} is ${row.status}: only a revoked version's bytes can be purged`,
        );
      }
      const [other] = await tx.query<unknown[]>(
        `SELECT 1 FROM skill_versions WHERE content_hash = $1 AND bytes_purged_at IS NULL
            AND NOT (skill_id = $2 AND version = $3) LIMIT 1`,
        [row.content_hash, skill.id, version],
      );
      if (row.bytes_purged_at === null) {
        await tx.query('UPDATE skill_versions SET bytes_purged_at = now() WHERE skill_id = $1 AND version = $2', [
          skill.id,
          version,
        ]);
        await recordAudit(tx, {
          type: 'skill_version',
          verb: 'purge',
          id: skill.id,
          namespace: skill.namespace,
          details: { name: skill.name, version, content_hash: row.content_hash, bytes_kept: other !== undefined },
        });
      }
      return { contentHash: row.content_hash, shared: other !== undefined };
    });
  }
}
