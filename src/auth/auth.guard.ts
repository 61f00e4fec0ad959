import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '../common/errors/domain-error';
import { requestContext } from '../common/logging/request-context';
import { MetricsService } from '../metrics/metrics.service';
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

/** Global: every route needs credentials unless marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly metrics: MetricsService,
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
    const principal = secret.length <= MAX_SECRET_LENGTH ? await this.authenticator.authenticate(secret) : null;
    if (!principal) {
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
