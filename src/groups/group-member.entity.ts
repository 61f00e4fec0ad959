import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { GroupEntity } from './group.entity';
import { GroupRole } from '../access';

/** A direct membership; roles in a parent group hold in its children (see access/roles.ts). */
@Entity('group_members')
@Check('group_members_role_check', `"role" IN ('Owner', 'Maintainer', 'Developer', 'Reporter')`)
@Index('group_members_user_id_idx', ['userId'])
export class GroupMemberEntity {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'group_members_pkey' })
  groupId: number;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'group_members_pkey' })
  userId: number;

  @ManyToOne(() => GroupEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'group_id', foreignKeyConstraintName: 'group_members_group_id_fkey' })
  group?: GroupEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'group_members_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'varchar', length: 16 })
  role: GroupRole;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
