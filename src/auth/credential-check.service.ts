// One way to check presented credentials, for every guard: the failed-authentication limit of the
// caller's address first (docs/operations.md#rate-limits), then the lookup, then the count of a failure.
import { ExecutionContext, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '../common/errors/domain-error';
import { MetricsService } from '../common/metrics/metrics.service';
import { AuthFailureLimiter, clientKey } from './auth-failure-limiter';
import { AuthenticatedRequest } from './auth.decorators';
import { Authenticator } from './authenticator.service';
import { Principal } from './principal';

const MAX_SECRET_LENGTH = 512;

/** `Authorization: Bearer <secret>` or `X-API-Key: <secret>`. */
export function presentedSecret(req: AuthenticatedRequest): string | undefined {
  const authorization = req.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return undefined;
}

/** `req.ip` follows TRUST_PROXY (Express `trust proxy`): the socket's address unless proxies are trusted. */
function addressOf(req: AuthenticatedRequest): string {
  return clientKey(req.ip ?? req.socket?.remoteAddress);
}

@Injectable()
export class CredentialCheck {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly failures: AuthFailureLimiter,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * The principal behind the request's credentials. `accept` may take a secret that is no key
   * (the metrics token): then the answer is `'accepted'`. 401 without or with wrong credentials,
   * 429 while the address is past its limit, whatever it presents. Credentials verified before
   * (cached) are answered at once, without a promise; a refusal is thrown where it is found.
   */
  check(context: ExecutionContext): Principal | Promise<Principal>;
  check(
    context: ExecutionContext,
    accept: (secret: string) => boolean,
  ): Principal | 'accepted' | Promise<Principal | 'accepted'>;
  check(
    context: ExecutionContext,
    accept?: (secret: string) => boolean,
  ): Principal | 'accepted' | Promise<Principal | 'accepted'> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const secret = presentedSecret(req);
    if (!secret) {
      this.metrics.authFailed('missing');
      throw new DomainError('UNAUTHENTICATED', 'Missing credentials: send Authorization: Bearer <key> or X-API-Key');
    }
    // Only an address that failed has a window: while none has, no address needs working out.
    const wait = this.failures.size === 0 ? 0 : this.failures.retryAfterSeconds(addressOf(req));
    if (wait > 0) {
      this.metrics.rateLimited('auth_failures');
      context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(wait));
      throw new DomainError('RATE_LIMITED', `Too many failed authentications from this address; retry in ${wait} s`);
    }
    if (accept?.(secret)) return 'accepted';
    if (secret.length > MAX_SECRET_LENGTH) return this.refuse(req);
    const principal = this.authenticator.authenticate(secret);
    return principal instanceof Promise ? principal.then((found) => found ?? this.refuse(req)) : principal;
  }

  private refuse(req: AuthenticatedRequest): never {
    this.failures.recordFailure(addressOf(req));
    this.metrics.authFailed('invalid');
    throw new DomainError('UNAUTHENTICATED', 'Invalid, revoked or expired credentials');
  }
}
