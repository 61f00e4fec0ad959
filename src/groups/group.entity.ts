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

/** A group is a namespace: `a`, `a/b`, `a/b/c`; `name` is the whole path. */
@Entity('groups')
@Index('groups_name_key', ['name'], { unique: true })
@Index('groups_parent_id_idx', ['parentId'])
export class GroupEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'groups_pkey' })
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'integer', nullable: true })
  parentId: number | null;

  @ManyToOne(() => GroupEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'parent_id', foreignKeyConstraintName: 'groups_parent_id_fkey' })
  parent?: GroupEntity;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
