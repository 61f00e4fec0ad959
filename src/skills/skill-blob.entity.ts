import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Uploaded package bytes, stored once per content hash and never changed. */
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
