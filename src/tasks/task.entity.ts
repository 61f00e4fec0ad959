import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { TeamEntity } from '../teams/team.entity';
import { UserEntity } from '../users/user.entity';

/** A task runs a team; its labels carry the user's picks. Never replaced or deleted through the API. */
@Entity('tasks')
@Index('tasks_owner_user_id_idx', ['ownerUserId'])
@Index('tasks_namespace_idx', ['namespace'])
export class TaskEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'tasks_pkey' })
  id: number;

  /** Kept when the team is deleted: the task then resolves as "team gone". */
  @Column({ type: 'integer' })
  teamId: number;

  @ManyToOne(() => TeamEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'tasks_team_id_fkey' })
  team?: TeamEntity;

  /** The creator, whose identity the task's labels act with. */
  @Column({ type: 'integer' })
  ownerUserId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_user_id', foreignKeyConstraintName: 'tasks_owner_user_id_fkey' })
  owner?: UserEntity;

  /** The team's namespace when the task was created. */
  @Column({ type: 'varchar', length: 200 })
  namespace: string;

  @Column({ type: 'varchar', length: 256, nullable: true })
  title: string | null;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  labels: Record<string, string>;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
