import { Injectable } from '@nestjs/common';
import { ApiKeyUsageRecorder } from './api-key-usage.recorder';
import { CredentialsRepository } from './credentials.repository';
import { Principal } from './principal';
import { hashSecret } from './secrets';

/** Turns a presented secret into a principal, or null when it is unknown or revoked. */
@Injectable()
export class Authenticator {
  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly usage: ApiKeyUsageRecorder,
  ) {}

  async authenticate(secret: string): Promise<Principal | null> {
    const hash = hashSecret(secret);
    const owner = await this.credentials.findActiveApiKeyOwner(hash);
    if (!owner) return null;
    this.usage.record(owner.key_id);
    return { kind: 'user', userId: owner.user_id, userName: owner.user_name, isAdmin: owner.role === 'admin' };
  }
}
