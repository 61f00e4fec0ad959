// GET /metrics: a bearer METRICS_TOKEN (for a Prometheus server, which is no user) or an admin's
// key. The route is @Public() to the global guard, which would take the token for an unknown key.
import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AuthenticatedRequest } from '../auth/auth.decorators';
import { presentedSecret } from '../auth/auth.guard';
import { Authenticator } from '../auth/authenticator.service';
import { DomainError } from '../common/errors/domain-error';
import { requestContext } from '../common/logging/request-context';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from './metrics.service';

/** As the global guard: longer secrets are not looked up. */
const MAX_SECRET_LENGTH = 512;

/** Equal strings, in a time that does not depend on where they differ (digests of equal length). */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

@Injectable()
export class MetricsAccessGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly authenticator: Authenticator,
    private readonly metrics: MetricsService,
  ) {}

  /** 401 without valid credentials; 404 for users who are not admins and for task tokens. */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const secret = presentedSecret(req);
    if (!secret) {
      this.metrics.authFailed('missing');
      throw new DomainError(
        'UNAUTHENTICATED',
        'Missing credentials: send Authorization: Bearer <METRICS_TOKEN or key>',
      );
    }
    if (this.config.metricsToken !== undefined && sameSecret(secret, this.config.metricsToken)) return true;
    const principal = secret.length <= MAX_SECRET_LENGTH ? await this.authenticator.authenticate(secret) : null;
    if (!principal) {
      this.metrics.authFailed('invalid');
      throw new DomainError('UNAUTHENTICATED', 'Invalid, revoked or expired credentials');
    }
    const ctx = requestContext.getStore();
    if (ctx) ctx.userId = principal.kind === 'user' ? principal.userId : principal.minterUserId;
    if (principal.kind !== 'user' || !principal.isAdmin) throw DomainError.notFound();
    req.principal = principal;
    return true;
  }
}
