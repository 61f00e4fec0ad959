import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { UserRole } from '../access';

@Entity('users')
@Check('users_role_check', `"role" IN ('admin', 'user')`)
@Index('users_user_name_key', ['userName'], { unique: true })
export class UserEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT', primaryKeyConstraintName: 'users_pkey' })
  id: number;

  @Column({ type: 'varchar', length: 64 })
  userName: string;

  @Column({ type: 'varchar', length: 16 })
  role: UserRole;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
