import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ScopedResourceEntity } from '../scoped/scoped-resource.entity';
import type { ExplicitSelection } from '../resolver';
import { TeamEntity } from '../teams/team.entity';

/** A scheduled job: its executions create tasks that resolve its `skill_refs` as its owner. */
@Entity('subscriptions')
@Index('subscriptions_personal_name_key', ['ownerUserId', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" = 'default'`,
})
@Index('subscriptions_group_name_key', ['namespace', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" <> 'default'`,
})
@Index('subscriptions_team_id_idx', ['teamId'])
export class SubscriptionEntity extends ScopedResourceEntity {
  @PrimaryGeneratedColumn('identity', {
    generatedIdentity: 'BY DEFAULT',
    primaryKeyConstraintName: 'subscriptions_pkey',
  })
  declare id: number;

  @Column({ type: 'integer' })
  teamId: number;

  @ManyToOne(() => TeamEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'team_id', foreignKeyConstraintName: 'subscriptions_team_id_fkey' })
  team?: TeamEntity;

  /** Explicit selections `{name, namespace, is_public, version?}`. */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  skillRefs: ExplicitSelection[];
}
