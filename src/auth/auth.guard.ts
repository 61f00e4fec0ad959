import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '../common/errors/domain-error';
import { requestContext } from '../common/logging/request-context';
import { AuthenticatedRequest, PUBLIC_ROUTE, TASK_TOKEN_ROUTE } from './auth.decorators';
import { CredentialCheck } from './credential-check.service';

/**
 * Global: every route needs credentials unless marked @Public(). An address past its limit of
 * failed authentications gets 429 for any credentials, checked before they are (docs/operations.md#rate-limits).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialCheck,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const principal = await this.credentials.check(context);
    if (principal.kind === 'task_token' && !this.reflector.getAllAndOverride<boolean>(TASK_TOKEN_ROUTE, targets)) {
      throw DomainError.notFound();
    }
    context.switchToHttp().getRequest<AuthenticatedRequest>().principal = principal;
    const ctx = requestContext.getStore();
    if (ctx) ctx.userId = principal.kind === 'user' ? principal.userId : principal.minterUserId;
    return true;
  }
}
