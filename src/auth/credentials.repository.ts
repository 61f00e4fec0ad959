import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PreparedStatement, queryPrepared } from '../database/prepared-query';
import { GroupRole, UserRole } from '../access';

export interface ApiKeyOwnerRow {
  key_id: number;
  user_id: number;
  user_name: string;
  role: UserRole;
}

export interface TaskTokenRow {
  token_id: number;
  task_id: number;
  minter_user_id: number;
  expires_at: Date;
  revoked: boolean;
  task_owner_user_id: number;
  task_namespace: string;
  minter_role: UserRole;
  /** The minter's direct roles in the task's namespace and its parents. */
  minter_group_roles: GroupRole[] | null;
}

/**
 * Written in the background by ApiKeyUsageRecorder, a few seconds after a key was used: not part
 * of any request (the tests that count a request's statements leave it out).
 */
export const TOUCH_API_KEYS_SQL = `UPDATE api_keys SET last_used_at = now()
  WHERE id = ANY($1::int[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`;

const ACTIVE_API_KEY_OWNER: PreparedStatement = {
  name: 'auth_active_api_key_owner',
  text: `SELECT k.id AS key_id, u.id AS user_id, u.user_name, u.role
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
};

const TASK_TOKEN: PreparedStatement = {
  name: 'auth_task_token',
  text: `SELECT tt.id AS token_id, tt.task_id, tt.minter_user_id, tt.expires_at, tt.revoked_at IS NOT NULL AS revoked,
                t.owner_user_id AS task_owner_user_id, t.namespace AS task_namespace, u.role AS minter_role,
                (SELECT array_agg(m.role) FROM group_members m JOIN groups g ON g.id = m.group_id
                  WHERE m.user_id = tt.minter_user_id
                    AND (t.namespace = g.name OR t.namespace LIKE g.name || '/%')) AS minter_group_roles
           FROM task_tokens tt
           JOIN tasks t ON t.id = tt.task_id
           JOIN users u ON u.id = tt.minter_user_id
          WHERE tt.token_hash = $1`,
};

/** The reads behind authentication: one round trip per request, each a prepared statement. */
@Injectable()
export class CredentialsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async findActiveApiKeyOwner(keyHash: string): Promise<ApiKeyOwnerRow | null> {
    const rows = await queryPrepared<ApiKeyOwnerRow>(this.db, ACTIVE_API_KEY_OWNER, [keyHash]);
    return rows[0] ?? null;
  }

  /** A token with what decides whether it still holds: expiry, revocation, the minter's access. */
  async findTaskToken(tokenHash: string): Promise<TaskTokenRow | null> {
    const rows = await queryPrepared<TaskTokenRow>(this.db, TASK_TOKEN, [tokenHash]);
    return rows[0] ?? null;
  }

  /** Stamps last use, at most once a minute per key whatever the number of replicas. */
  async touchApiKeys(keyIds: number[]): Promise<void> {
    await this.db.query(TOUCH_API_KEYS_SQL, [keyIds]);
  }
}
