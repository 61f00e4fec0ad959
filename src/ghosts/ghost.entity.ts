import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ScopedResourceEntity } from '../scoped/scoped-resource.entity';
import type { StoredRef } from '../resolver';

/** An agent persona and its static skills; every listed name has a stored ref in `skillRefs`. */
@Entity('ghosts')
@Index('ghosts_personal_name_key', ['ownerUserId', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" = 'default'`,
})
@Index('ghosts_group_name_key', ['namespace', 'name'], {
  unique: true,
  where: `"deleted_at" IS NULL AND "namespace" <> 'default'`,
})
export class GhostEntity extends ScopedResourceEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'ghosts_pkey' })
  declare id: number;

  @Column({ type: 'jsonb', default: () => `'[]'` })
  skills: string[];

  @Column({ type: 'jsonb', default: () => `'[]'` })
  preloadSkills: string[];

  @Column({ type: 'jsonb', default: () => `'{}'` })
  skillRefs: Record<string, StoredRef>;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  preloadSkillRefs: Record<string, StoredRef>;
}
