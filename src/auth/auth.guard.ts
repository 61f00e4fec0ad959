import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { DomainError } from '../common/errors/domain-error';
import { requestContext } from '../common/logging/request-context';
import { MetricsService } from '../metrics/metrics.service';
import { AuthFailureLimiter, clientKey } from './auth-failure-limiter';
import { AuthenticatedRequest, PUBLIC_ROUTE, TASK_TOKEN_ROUTE } from './auth.decorators';
import { Authenticator } from './authenticator.service';

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

/**
 * Global: every route needs credentials unless marked @Public(). An address past its limit of
 * failed authentications gets 429 for any credentials, checked before they are (CONTRACT §11).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly metrics: MetricsService,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const secret = presentedSecret(req);
    if (!secret) {
      this.metrics.authFailed('missing');
      throw new DomainError('UNAUTHENTICATED', 'Missing credentials: send Authorization: Bearer <key> or X-API-Key');
    }
    // `req.ip` follows TRUST_PROXY (Express `trust proxy`): the socket's address unless proxies are trusted.
    const address = clientKey(req.ip ?? req.socket?.remoteAddress);
    const wait = this.failures.retryAfterSeconds(address);
    if (wait > 0) {
      this.metrics.rateLimited('auth_failures');
      context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(wait));
      throw new DomainError('RATE_LIMITED', `Too many failed authentications from this address; retry in ${wait} s`);
    }
    const principal = secret.length <= MAX_SECRET_LENGTH ? await this.authenticator.authenticate(secret) : null;
    if (!principal) {
      this.failures.recordFailure(address);
      this.metrics.authFailed('invalid');
      throw new DomainError('UNAUTHENTICATED', 'Invalid, revoked or expired credentials');
    }
    if (principal.kind === 'task_token' && !this.reflector.getAllAndOverride<boolean>(TASK_TOKEN_ROUTE, targets)) {
      throw DomainError.notFound();
    }
    req.principal = principal;
    const ctx = requestContext.getStore();
    if (ctx) ctx.userId = principal.kind === 'user' ? principal.userId : principal.minterUserId;
    return true;
  }
}
