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
import { UserEntity } from '../users/user.entity';

/**
 * A skill in one scope: personal (`default`, owned by its uploader), group (namespace = group) or
 * public (`is_public`, `default`, no owner). One active skill per scope and name; soft-deleted
 * rows keep their id and free the name.
 */
@Entity('skills')
@Check('skills_public_scope_check', `NOT "is_public" OR ("namespace" = 'default' AND "owner_user_id" IS NULL)`)
@Check('skills_owner_check', `"is_public" OR "owner_user_id" IS NOT NULL`)
@Index('skills_personal_name_key', ['ownerUserId', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" = 'default' AND NOT "is_public"`,
})
@Index('skills_group_name_key', ['namespace', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" <> 'default'`,
})
@Index('skills_public_name_key', ['name'], { unique: true, where: `"deleted_at" IS NULL AND "is_public"` })
@Index('skills_name_idx', ['name'])
// The resolver reaches skills by scope and name, deleted ones included (they answer DELETED).
@Index('skills_namespace_name_idx', ['namespace', 'name'])
@Index('skills_owner_name_idx', ['ownerUserId', 'name'])
@Index('skills_public_name_idx', ['name'], { where: `"is_public"` })
export class SkillEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'skills_pkey' })
  id: number;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 200 })
  namespace: string;

  @Column({ type: 'boolean', default: false })
  isPublic: boolean;

  /** Personal: the owner; group: the creator (who may change it while Developer+); public: null. */
  @Column({ type: 'integer', nullable: true })
  ownerUserId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_user_id', foreignKeyConstraintName: 'skills_owner_user_id_fkey' })
  owner?: UserEntity;

  @Column({ type: 'integer' })
  createdByUserId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'created_by_user_id', foreignKeyConstraintName: 'skills_created_by_user_id_fkey' })
  createdBy?: UserEntity;

  /** The latest version's description, kept here for listing and search. */
  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'integer' })
  latestVersion: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
