import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { recordAudit } from '../common/audit/audit-log';
import { ApiKeyEntity } from './api-key.entity';
import { UserRole } from '../access';
import { UserEntity } from './user.entity';

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

  /** Whether `keyHash` is an unrevoked key of an admin: a key that still opens the admin's routes. */
  async isActiveAdminKey(keyHash: string): Promise<boolean> {
    return this.keys.exists({ where: { keyHash, revokedAt: IsNull(), user: { role: 'admin' } } });
  }

  /** A new user and their first key, in one transaction. */
  async createWithKey(userName: string, role: UserRole, key: NewKey): Promise<{ user: UserEntity; key: ApiKeyEntity }> {
    return this.users.manager.transaction(async (tx) => {
      const user = await tx.save(tx.create(UserEntity, { userName, role }));
      await recordUser(tx, user, 'create');
      const saved = await this.insertKey(tx, user.id, key);
      return { user, key: saved };
    });
  }

  addKey(userId: number, key: NewKey): Promise<ApiKeyEntity> {
    return this.keys.manager.transaction((tx) => this.insertKey(tx, userId, key));
  }

  listActiveKeys(userId: number): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { userId, revokedAt: IsNull() }, order: { id: 'ASC' } });
  }

  /** Revokes one active key of `userId`; false when there is none with that id. */
  async revokeKey(userId: number, keyId: number): Promise<boolean> {
    return this.keys.manager.transaction(async (tx) => {
      const result = await tx.update(
        ApiKeyEntity,
        { id: keyId, userId, revokedAt: IsNull() },
        { revokedAt: () => 'now()' },
      );
      if (!result.affected) return false;
      await recordAudit(tx, {
        type: 'api_key',
        verb: 'revoke',
        id: keyId,
        namespace: null,
        details: { user_id: userId },
      });
      return true;
    });
  }

  /**
   * Makes `key` the one bootstrap key of the admin `userName` (creating the admin when missing)
   * and revokes earlier bootstrap keys, so changing ADMIN_API_KEY retires the old one.
   */
  async upsertBootstrapAdmin(userName: string, key: NewKey): Promise<{ user: UserEntity; created: boolean }> {
    return this.users.manager.transaction(async (tx) => {
      let user = await tx.findOneBy(UserEntity, { userName });
      const created = !user;
      if (!user) {
        user = await tx.save(tx.create(UserEntity, { userName, role: 'admin' }));
        await recordUser(tx, user, 'create');
      } else if (user.role !== 'admin') {
        await tx.update(UserEntity, { id: user.id }, { role: 'admin' });
        await recordUser(tx, { ...user, role: 'admin' }, 'update');
      }
      const [revoked]: [Array<{ id: number; user_id: number }>, number] = await tx.query(
        `UPDATE api_keys SET revoked_at = now() WHERE is_bootstrap AND revoked_at IS NULL AND key_hash <> $1
         RETURNING id, user_id`,
        [key.keyHash],
      );
      for (const old of revoked) {
        await recordAudit(tx, {
          type: 'api_key',
          verb: 'revoke',
          id: old.id,
          namespace: null,
          details: { user_id: old.user_id },
        });
      }
      // Only what changes is recorded: a boot with the same key writes no event.
      const [current]: Array<{ id: number; user_id: number; active: boolean; is_bootstrap: boolean }> = await tx.query(
        `SELECT id, user_id, revoked_at IS NULL AS active, is_bootstrap FROM api_keys WHERE key_hash = $1`,
        [key.keyHash],
      );
      if (current?.active && current.is_bootstrap && current.user_id === user.id) return { user, created };
      const [installed]: Array<{ id: number }> = await tx.query(
        `INSERT INTO api_keys (user_id, key_hash, prefix, is_bootstrap) VALUES ($1, $2, $3, true)
         ON CONFLICT (key_hash) DO UPDATE SET user_id = EXCLUDED.user_id, revoked_at = NULL, is_bootstrap = true
         RETURNING id`,
        [user.id, key.keyHash, key.prefix],
      );
      await recordAudit(tx, {
        type: 'api_key',
        verb: current ? 'update' : 'create',
        id: installed.id,
        namespace: null,
        details: { user_id: user.id, bootstrap: true },
      });
      return { user, created };
    });
  }

  private async insertKey(tx: EntityManager, userId: number, key: NewKey): Promise<ApiKeyEntity> {
    const saved = await tx.save(
      tx.create(ApiKeyEntity, { userId, keyHash: key.keyHash, prefix: key.prefix, isBootstrap: false }),
    );
    await recordAudit(tx, {
      type: 'api_key',
      verb: 'create',
      id: saved.id,
      namespace: null,
      details: { user_id: userId },
    });
    return saved;
  }
}

function recordUser(tx: EntityManager, user: UserEntity, verb: 'create' | 'update'): Promise<void> {
  return recordAudit(tx, {
    type: 'user',
    verb,
    id: user.id,
    namespace: null,
    details: { user_name: user.userName, role: user.role },
  });
}

export interface NewKey {
  keyHash: string;
  prefix: string;
}
