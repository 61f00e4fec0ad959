import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { SkillVersionEntity } from './skill-version.entity';

/**
 * A named pointer to one version of a skill (docs/resolution.md#version-lifecycle). It points only
 * at an active or deprecated version; revoking the version deletes it.
 */
@Entity('skill_tags')
export class SkillTagEntity {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'skill_tags_pkey' })
  skillId: number;

  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'skill_tags_pkey' })
  tag: string;

  @Column({ type: 'integer' })
  version: number;

  // Versions are never deleted; were one to be, its tags would go with it.
  @ManyToOne(() => SkillVersionEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'skill_id', referencedColumnName: 'skillId', foreignKeyConstraintName: 'skill_tags_version_fkey' },
    { name: 'version', referencedColumnName: 'version', foreignKeyConstraintName: 'skill_tags_version_fkey' },
  ])
  target?: SkillVersionEntity;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
