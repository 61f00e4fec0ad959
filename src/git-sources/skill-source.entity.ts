import { Column, CreateDateColumn, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { SkillEntity } from '../skills/skill.entity';

/**
 * The git folder a skill is published from (docs/publishing.md#importing-from-git) and what the
 * last drift check found. A row of its own, not columns of `skills`: checks write it often, and
 * the rows the resolver reads stay untouched by them.
 */
@Entity('skill_sources')
export class SkillSourceEntity {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'skill_sources_pkey' })
  skillId: number;

  @OneToOne(() => SkillEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'skill_id', foreignKeyConstraintName: 'skill_sources_skill_id_fkey' })
  skill?: SkillEntity;

  /** The repository URL as the publisher gave it (never with credentials). */
  @Column({ type: 'text' })
  url: string;

  /** A branch, a tag, a commit id or `HEAD`, as given. */
  @Column({ type: 'text' })
  ref: string;

  /** The folder, relative to the repository root; `''` for the root. */
  @Column({ type: 'text' })
  path: string;

  /** The commit the skill was last published (or found unchanged) from. */
  @Column({ type: 'varchar', length: 64 })
  commit: string;

  /**
   * The folder's tree id at `commit`, what a check compares the ref's current tree with; null until
   * known (a skill imported as one of several is read as part of its parent folder).
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  treeId: string | null;

  /** What the ref resolved to at the last check; null before any. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  latestCommit: string | null;

  /** Whether the folder's tree differed at the last check; null before any. */
  @Column({ type: 'boolean', nullable: true })
  behind: boolean | null;

  @Column({ type: 'timestamptz', nullable: true })
  checkedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
