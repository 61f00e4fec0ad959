import { CreateDateColumn, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { UserEntity } from '../users/user.entity';
import { TaskEntity } from './task.entity';

/** Links a task to the subscription whose execution created it; the latest one counts. */
@Entity('background_executions')
@Index('background_executions_task_id_idx', ['taskId'])
@Index('background_executions_subscription_id_idx', ['subscriptionId'])
export class BackgroundExecutionEntity {
  @PrimaryGeneratedColumn('identity', {
    generatedIdentity: 'BY DEFAULT',
    primaryKeyConstraintName: 'background_executions_pkey',
  })
  id: number;

  @Column({ type: 'integer' })
  taskId: number;

  @ManyToOne(() => TaskEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'task_id', foreignKeyConstraintName: 'background_executions_task_id_fkey' })
  task?: TaskEntity;

  @Column({ type: 'integer' })
  subscriptionId: number;

  @ManyToOne(() => SubscriptionEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'subscription_id', foreignKeyConstraintName: 'background_executions_subscription_id_fkey' })
  subscription?: SubscriptionEntity;

  @Column({ type: 'integer' })
  createdByUserId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'created_by_user_id', foreignKeyConstraintName: 'background_executions_created_by_user_id_fkey' })
  createdBy?: UserEntity;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
