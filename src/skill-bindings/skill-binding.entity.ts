import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { BindingException } from '../resolver';
import { GroupEntity } from '../groups/group.entity';
import { SkillEntity } from '../skills/skill.entity';
import { UserEntity } from '../users/user.entity';

/**
 * A skill bound to a user or to a group (docs/resolution.md#skill-bindings): exactly one target.
 * One binding per (skill, target). The partial unique indexes lead with the target, so they also
 * serve the resolver's read (a task creator's and a lineage's bindings); removing a skill's
 * bindings reads `skill_bindings_skill_id_idx`. A target or skill that goes takes its bindings.
 */
@Entity('skill_bindings')
@Check('skill_bindings_target_check', `("user_id" IS NULL) <> ("group_id" IS NULL)`)
@Index('skill_bindings_user_skill_key', ['userId', 'skillId'], { unique: true, where: `"user_id" IS NOT NULL` })
@Index('skill_bindings_group_skill_key', ['groupId', 'skillId'], { unique: true, where: `"group_id" IS NOT NULL` })
@Index('skill_bindings_skill_id_idx', ['skillId'])
export class SkillBindingEntity {
  @PrimaryGeneratedColumn('identity', {
    generatedIdentity: 'BY DEFAULT',
    primaryKeyConstraintName: 'skill_bindings_pkey',
  })
  id: number;

  @Column({ type: 'integer' })
  skillId: number;

  @ManyToOne(() => SkillEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'skill_id', foreignKeyConstraintName: 'skill_bindings_skill_id_fkey' })
  skill?: SkillEntity;

  @Column({ type: 'integer', nullable: true })
  userId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'skill_bindings_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'integer', nullable: true })
  groupId: number | null;

  @ManyToOne(() => GroupEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'group_id', foreignKeyConstraintName: 'skill_bindings_group_id_fkey' })
  group?: GroupEntity;

  @Column({ type: 'boolean', default: false })
  preload: boolean;

  @Column({ type: 'jsonb', default: () => `'[]'` })
  exceptions: BindingException[];

  @Column({ type: 'integer' })
  createdByUserId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'created_by_user_id', foreignKeyConstraintName: 'skill_bindings_created_by_user_id_fkey' })
  createdBy?: UserEntity;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
