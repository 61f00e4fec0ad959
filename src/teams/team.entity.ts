import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ScopedResourceEntity } from '../scoped/scoped-resource.entity';

export interface TeamMember {
  bot_id: number;
}

/** An ordered list of bots; the order decides among their ghosts (first bot wins). */
@Entity('teams')
@Index('teams_personal_name_key', ['ownerUserId', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" = 'default'`,
})
@Index('teams_group_name_key', ['namespace', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" <> 'default'`,
})
export class TeamEntity extends ScopedResourceEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'teams_pkey' })
  declare id: number;

  /** `[{bot_id}]`, in member order. */
  @Column({ type: 'jsonb' })
  members: TeamMember[];
}
