import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ScopedResourceEntity } from '../scoped/scoped-resource.entity';
import { GhostEntity } from '../ghosts/ghost.entity';

@Entity('bots')
@Index('bots_personal_name_key', ['ownerUserId', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" = 'default'`,
})
@Index('bots_group_name_key', ['namespace', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" <> 'default'`,
})
@Index('bots_ghost_id_idx', ['ghostId'])
export class BotEntity extends ScopedResourceEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'bots_pkey' })
  declare id: number;

  @Column({ type: 'integer' })
  ghostId: number;

  @ManyToOne(() => GhostEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'ghost_id', foreignKeyConstraintName: 'bots_ghost_id_fkey' })
  ghost?: GhostEntity;
}
