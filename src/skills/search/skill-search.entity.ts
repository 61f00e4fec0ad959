import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SkillEntity } from '../skill.entity';

/**
 * What search reads for one active skill (docs/search.md), kept by search-document.ts. The scope
 * columns copy the skill's, which never change, so ranking and the access filter read this table
 * alone. The GIN indexes are declared in the migration (TypeORM cannot describe them) and left out
 * of the schema comparison here.
 */
@Entity('skill_search')
@Index('skill_search_name_vector_idx', { synchronize: false })
@Index('skill_search_name_variants_idx', { synchronize: false })
@Index('skill_search_description_vector_idx', { synchronize: false })
@Index('skill_search_body_vector_idx', { synchronize: false })
export class SkillSearchEntity {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'skill_search_pkey' })
  skillId: number;

  @ManyToOne(() => SkillEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'skill_id', foreignKeyConstraintName: 'skill_search_skill_id_fkey' })
  skill?: SkillEntity;

  /** The version whose description and SKILL.md are indexed: the latest. */
  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 200 })
  namespace: string;

  @Column({ type: 'boolean' })
  isPublic: boolean;

  @Column({ type: 'integer', nullable: true })
  ownerUserId: number | null;

  /** `public`, `user:<owner id>` or `group:<namespace>` (search-document.ts): the access filter's index. */
  @Index('skill_search_scope_key_idx')
  @Column({ type: 'varchar', length: 210 })
  scopeKey: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'smallint' })
  nameWordCount: number;

  /** Every name word and its one-deletion variants (search-terms.ts), for typos. */
  @Column({ type: 'text', array: true })
  nameVariants: string[];

  @Column({ type: 'tsvector' })
  nameVector: string;

  @Column({ type: 'tsvector' })
  descriptionVector: string;

  @Column({ type: 'tsvector' })
  bodyVector: string;
}
