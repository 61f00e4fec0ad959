import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { UserEntity, UserRole } from './user.entity';

@Injectable()
export class UsersRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
  ) {}

  findById(id: number): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  findByName(userName: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ userName });
  }

  countUsers(): Promise<number> {
    return this.users.count();
  }

  /** A new user and their first key, in one transaction. */
  async createWithKey(userName: string, role: UserRole, key: NewKey): Promise<{ user: UserEntity; key: ApiKeyEntity }> {
    return this.users.manager.transaction(async (tx) => {
      const user = await tx.save(tx.create(UserEntity, { userName, role }));
      const saved = await this.insertKey(tx, user.id, key);
      return { user, key: saved };
    });
  }

  addKey(userId: number, key: NewKey): Promise<ApiKeyEntity> {
    return this.insertKey(this.keys.manager, userId, key);
  }

  listActiveKeys(userId: number): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { userId, revokedAt: IsNull() }, order: { id: 'ASC' } });
  }

  /** Revokes one active key of `userId`; false when there is none with that id. */
  async revokeKey(userId: number, keyId: number): Promise<boolean> {
    const result = await this.keys.update({ id: keyId, userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Makes `key` the one bootstrap key of the admin `userName` (creating the admin when missing)
   * and revokes earlier bootstrap keys, so changing ADMIN_API_KEY retires the old one.
   */
  async upsertBootstrapAdmin(userName: string, key: NewKey): Promise<{ user: UserEntity; created: boolean }> {
    return this.users.manager.transaction(async (tx) => {
      let user = await tx.findOneBy(UserEntity, { userName });
      const created = !user;
      if (!user) user = await tx.save(tx.create(UserEntity, { userName, role: 'admin' }));
      else if (user.role !== 'admin') await tx.update(UserEntity, { id: user.id }, { role: 'admin' });
      await tx.query(
        `UPDATE api_keys SET revoked_at = now() WHERE is_bootstrap AND revoked_at IS NULL AND key_hash <> $1`,
        [key.keyHash],
      );
      await tx.query(
        `INSERT INTO api_keys (user_id, key_hash, prefix, is_bootstrap) VALUES ($1, $2, $3, true)
         ON CONFLICT (key_hash) DO UPDATE SET user_id = EXCLUDED.user_id, revoked_at = NULL, is_bootstrap = true`,
        [user.id, key.keyHash, key.prefix],
      );
      return { user, created };
    });
  }

  private insertKey(manager: EntityManager, userId: number, key: NewKey): Promise<ApiKeyEntity> {
    return manager.save(
      manager.create(ApiKeyEntity, { userId, keyHash: key.keyHash, prefix: key.prefix, isBootstrap: false }),
    );
  }
}

export interface NewKey {
  keyHash: string;
  prefix: string;
}
