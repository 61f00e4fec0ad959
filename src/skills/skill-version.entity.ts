import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { SkillEntity } from './skill.entity';
import type { Requires } from '../policy';
import type { FileOffset, ManifestFile } from '../package/inspect-package';
import type { VersionStatus } from '../resolver';

/**
 * Where a version published from git came from (docs/publishing.md#provenance): `ref` as the
 * publisher gave it (`HEAD` when not), the 40-hex commit it resolved to, and the folder's path
 * relative to the repository root (`''` for the root). Written once, with the version.
 */
export interface VersionSource {
  type: 'git';
  url: string;
  ref: string;
  commit: string;
  path: string;
}

/**
 * One version of a skill: numbered from 1, its files never changed once written. Only its
 * lifecycle status moves (docs/resolution.md#version-lifecycle).
 */
@Entity('skill_versions')
@Check('skill_versions_status_check', `"status" IN ('active', 'deprecated', 'yanked', 'revoked')`)
@Index('skill_versions_content_hash_idx', ['contentHash'])
export class SkillVersionEntity {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'skill_versions_pkey' })
  skillId: number;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'skill_versions_pkey' })
  version: number;

  @ManyToOne(() => SkillEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'skill_id', foreignKeyConstraintName: 'skill_versions_skill_id_fkey' })
  skill?: SkillEntity;

  /**
   * `sha256:<hex>` of the stored zip bytes; the download ETag, and the store's key
   * (docs/storage.md#keys). No foreign key: the bytes may live outside the database.
   */
  @Column({ type: 'varchar', length: 71 })
  contentHash: string;

  /** `sha256:<hex>` of the RFC 8785 JSON of the file list. */
  @Column({ type: 'varchar', length: 71 })
  revision: string;

  @Column({ type: 'integer' })
  size: number;

  @Column({ type: 'integer' })
  fileCount: number;

  @Column({ type: 'jsonb' })
  manifest: ManifestFile[];

  @Column({ type: 'jsonb' })
  frontmatter: object;

  /** docs/packages.md#tool-policy-fields: the `allowed-tools` entries as written; null when the key is absent. */
  @Column({ type: 'jsonb', nullable: true })
  allowedTools: string[] | null;

  /** docs/packages.md#tool-policy-fields: `{bins, env}`, sorted and unique, empty lists when nothing is declared. */
  @Column({ type: 'jsonb' })
  requires: Requires;

  /**
   * Where each manifest file lies in the stored zip, in manifest order (docs/storage.md#single-files);
   * null when the bytes could not be read to record it. Read only where single files are served.
   */
  @Column({ type: 'jsonb', nullable: true, select: false })
  fileOffsets: FileOffset[] | null;

  /** When an admin purged the bytes of this (revoked) version; null while they are kept (docs/storage.md#purge). */
  @Column({ type: 'timestamptz', nullable: true })
  bytesPurgedAt: Date | null;

  /** The text of SKILL.md; read only where it is served, never with version lists. */
  @Column({ type: 'text', select: false })
  skillMd: string;

  @Column({ type: 'integer' })
  createdByUserId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'created_by_user_id', foreignKeyConstraintName: 'skill_versions_created_by_user_id_fkey' })
  createdBy?: UserEntity;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** `active`, `deprecated`, `yanked` or `revoked` (final). */
  @Column({ type: 'text', default: 'active' })
  status: VersionStatus;

  /** Why the status was set, at most 500 characters. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  statusMessage: string | null;

  /** Where the files came from when they were imported from git (docs/publishing.md#provenance); null for uploads. */
  @Column({ type: 'jsonb', nullable: true })
  source: VersionSource | null;

  /** When the status last changed; null while it never has. */
  @Column({ type: 'timestamptz', nullable: true })
  statusChangedAt: Date | null;
}
