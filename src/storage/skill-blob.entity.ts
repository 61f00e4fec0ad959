import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * The `database` store's objects (docs/storage.md#database): package bytes by content hash, written
 * once and never changed. No version refers to a row by a foreign key: the bytes may live in another
 * store, and publish writes them before the version (docs/storage.md#publish).
 */
@Entity('skill_blobs')
export class SkillBlobEntity {
  /** `sha256:<hex>` of `data`. */
  @PrimaryColumn({ type: 'varchar', length: 71, primaryKeyConstraintName: 'skill_blobs_pkey' })
  contentHash: string;

  @Column({ type: 'bytea' })
  data: Buffer;

  @Column({ type: 'integer' })
  size: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
