import { Injectable } from '@nestjs/common';
import { ChangeGeneration, GenerationCache } from '../cache/change-generation';
import { InFlight } from '../cache/in-flight';
import { highestRole, taskTokenHolds } from '../access';
import { ApiKeyUsageRecorder } from './api-key-usage.recorder';
import { CredentialsRepository } from './credentials.repository';
import { Principal } from './principal';
import { hashSecret, TASK_TOKEN_PREFIX } from './secrets';

interface Verified {
  principal: Principal;
  /** API keys: recorded as used on every hit. */
  keyId?: number;
  /** Task tokens: checked on every hit, a cached token expires on time. */
  expiresAt?: number;
}

function unexpired(verified: Verified, now: number): boolean {
  return verified.expiresAt === undefined || verified.expiresAt > now;
}

/**
 * Turns a presented secret into a principal, or null when it is unknown, revoked or expired.
 * Verified credentials are cached by hash until the next change (ChangeGeneration), so a
 * revocation, a role change or a lost membership takes effect at once.
 */
@Injectable()
export class Authenticator {
  private readonly verified: GenerationCache<Verified>;
  /**
   * Verifications under way, by hash and the generation they began at: a request presenting the
   * same secret meanwhile, with nothing changed since, waits for it (a burst after a change
   * verifies each key once).
   */
  private readonly verifying = new InFlight<Verified | null, number>();

  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly usage: ApiKeyUsageRecorder,
    private readonly changes: ChangeGeneration,
  ) {
    // Read on every authenticated request: hits mostly leave the entry where it is.
    this.verified = new GenerationCache(changes, undefined, { lazy: true });
  }

  /** A verified credential still cached is answered at once, with no promise (the common case). */
  authenticate(secret: string, now = Date.now()): Principal | Promise<Principal | null> {
    const hash = hashSecret(secret);
    const cached = this.verified.get(hash);
    if (cached && unexpired(cached, now)) return this.use(cached);
    return this.verify(secret, hash, now);
  }

  private async verify(secret: string, hash: string, now: number): Promise<Principal | null> {
    const generation = this.changes.current();
    const current = (begun: number): boolean => this.changes.isCurrent(begun);
    const verified = await this.verifying.run(hash, generation, current, async () => {
      const found = secret.startsWith(TASK_TOKEN_PREFIX) ? await this.taskToken(hash, now) : await this.apiKey(hash);
      if (found) this.verified.set(hash, found, generation);
      return found;
    });
    // A request that waited for another's verification checks the expiry at its own time.
    return verified && unexpired(verified, now) ? this.use(verified) : null;
  }

  private use(verified: Verified): Principal {
    if (verified.keyId !== undefined) this.usage.record(verified.keyId);
    return verified.principal;
  }

  private async apiKey(hash: string): Promise<Verified | null> {
    const owner = await this.credentials.findActiveApiKeyOwner(hash);
    if (!owner) return null;
    const principal: Principal = {
      kind: 'user',
      userId: owner.user_id,
      userName: owner.user_name,
      isAdmin: owner.role === 'admin',
    };
    return { principal, keyId: owner.key_id };
  }

  /** A token holds until it expires or is revoked, and only while its minter may read the task. */
  private async taskToken(hash: string, now: number): Promise<Verified | null> {
    const row = await this.credentials.findTaskToken(hash);
    if (!row) return null;
    const expiresAt = row.expires_at.getTime();
    const holds = taskTokenHolds(
      {
        revoked: row.revoked,
        expiresAt,
        minter: { userId: row.minter_user_id, isAdmin: row.minter_role === 'admin' },
        task: { ownerUserId: row.task_owner_user_id, namespace: row.task_namespace },
        minterRole: highestRole(row.minter_group_roles ?? []),
      },
      now,
    );
    if (!holds) return null;
    const principal: Principal = {
      kind: 'task_token',
      tokenId: row.token_id,
      taskId: row.task_id,
      minterUserId: row.minter_user_id,
    };
    return { principal, expiresAt };
  }
}
