import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { TaskEntity } from './task.entity';

/** A task-scoped credential for sandboxes, kept as its SHA-256; valid until expiry or revocation. */
@Entity('task_tokens')
@Index('task_tokens_token_hash_key', ['tokenHash'], { unique: true })
@Index('task_tokens_task_id_idx', ['taskId'])
export class TaskTokenEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'task_tokens_pkey' })
  id: number;

  @Column({ type: 'integer' })
  taskId: number;

  @ManyToOne(() => TaskEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'task_id', foreignKeyConstraintName: 'task_tokens_task_id_fkey' })
  task?: TaskEntity;

  @Column({ type: 'integer' })
  minterUserId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'minter_user_id', foreignKeyConstraintName: 'task_tokens_minter_user_id_fkey' })
  minter?: UserEntity;

  @Column({ type: 'char', length: 64 })
  tokenHash: string;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
