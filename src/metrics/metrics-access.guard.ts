// GET /metrics: a bearer METRICS_TOKEN (for a Prometheus server, which is no user) or an admin's
// key. The route is @Public() to the global guard, which would take the token for an unknown key.
import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AuthenticatedRequest } from '../auth/auth.decorators';
import { CredentialCheck } from '../auth/credential-check.service';
import { DomainError } from '../common/errors/domain-error';
import { requestContext } from '../common/logging/request-context';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** Equal strings, in a time that does not depend on where they differ (digests of equal length). */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

@Injectable()
export class MetricsAccessGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: CredentialCheck,
  ) {}

  /** 401 without valid credentials; 404 for users who are not admins and for task tokens. */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const token = this.config.metricsToken;
    const principal = await this.credentials.check(
      context,
      (secret) => token !== undefined && sameSecret(secret, token),
    );
    if (principal === 'accepted') return true;
    const ctx = requestContext.getStore();
    if (ctx) ctx.userId = principal.kind === 'user' ? principal.userId : principal.minterUserId;
    if (principal.kind !== 'user' || !principal.isAdmin) throw DomainError.notFound();
    context.switchToHttp().getRequest<AuthenticatedRequest>().principal = principal;
    return true;
  }
}
