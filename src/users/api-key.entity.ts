import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** A user's API key, kept only as the SHA-256 of the key (keys are random, no slow hash needed). */
@Entity('api_keys')
@Index('api_keys_key_hash_key', ['keyHash'], { unique: true })
@Index('api_keys_user_id_idx', ['userId'])
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'api_keys_pkey' })
  id: number;

  @Column({ type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'api_keys_user_id_fkey' })
  user?: UserEntity;

  /** Hex SHA-256 of the whole key. */
  @Column({ type: 'char', length: 64 })
  keyHash: string;

  /** The first 12 characters, so a user can tell keys apart. */
  @Column({ type: 'varchar', length: 12 })
  prefix: string;

  /** The key that ADMIN_API_KEY (or the generated first key) installs; replaced when it changes. */
  @Column({ type: 'boolean', default: false })
  isBootstrap: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
