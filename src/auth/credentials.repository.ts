import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UserRole } from '../users/user.entity';

export interface ApiKeyOwnerRow {
  key_id: number;
  user_id: number;
  user_name: string;
  role: UserRole;
}

/** The reads behind authentication: one round trip per request. */
@Injectable()
export class CredentialsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async findActiveApiKeyOwner(keyHash: string): Promise<ApiKeyOwnerRow | null> {
    const rows: ApiKeyOwnerRow[] = await this.db.query(
      `SELECT k.id AS key_id, u.id AS user_id, u.user_name, u.role
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    return rows[0] ?? null;
  }

  /** Stamps last use, at most once a minute per key whatever the number of replicas. */
  async touchApiKeys(keyIds: number[]): Promise<void> {
    await this.db.query(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = ANY($1::int[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [keyIds],
    );
  }
}
