// The columns every ghost, bot, team and subscription has: a name unique per scope among
// non-deleted rows, an owner (the creator), a namespace, and a soft delete.
import { Column, CreateDateColumn, JoinColumn, ManyToOne, UpdateDateColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

export abstract class ScopedResourceEntity {
  id: number;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  /** `default` (personal) or a group name. */
  @Column({ type: 'varchar', length: 200 })
  namespace: string;

  @Column({ type: 'integer' })
  ownerUserId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_user_id' })
  owner?: UserEntity;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
