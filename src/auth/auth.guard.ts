import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '../common/errors/domain-error';
import { requestContext } from '../common/logging/request-context';
import { AuthenticatedRequest, PUBLIC_ROUTE, TASK_TOKEN_ROUTE } from './auth.decorators';
import { CredentialCheck } from './credential-check.service';
import { Principal } from './principal';

/** What a route's decorators say about its callers: fixed once the app is built. */
interface RouteAccess {
  public: boolean;
  taskToken: boolean;
}

/**
 * Global: every route needs credentials unless marked @Public(). An address past its limit of
 * failed authentications gets 429 for any credentials, checked before they are (docs/operations.md#rate-limits).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** By controller class and handler: their metadata read once, not on every request. */
  private readonly routes = new WeakMap<object, WeakMap<object, RouteAccess>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialCheck,
  ) {}

  /**
   * Synchronous for public routes and credentials verified before (cached): Nest awaits only a
   * promise. A refusal thrown here reaches the exception filters as a rejected one would.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const route = this.routeAccess(context);
    if (route.public) return true;
    const principal = this.credentials.check(context);
    return principal instanceof Promise
      ? principal.then((found) => this.admit(context, route, found))
      : this.admit(context, route, principal);
  }

  private admit(context: ExecutionContext, route: RouteAccess, principal: Principal): boolean {
    if (principal.kind === 'task_token' && !route.taskToken) throw DomainError.notFound();
    context.switchToHttp().getRequest<AuthenticatedRequest>().principal = principal;
    const ctx = requestContext.getStore();
    if (ctx) ctx.userId = principal.kind === 'user' ? principal.userId : principal.minterUserId;
    return true;
  }

  private routeAccess(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    const controller = context.getClass();
    let handlers = this.routes.get(controller);
    if (!handlers) this.routes.set(controller, (handlers = new WeakMap()));
    let route = handlers.get(handler);
    if (!route) {
      const targets = [handler, controller];
      route = {
        public: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true,
        taskToken: this.reflector.getAllAndOverride<boolean>(TASK_TOKEN_ROUTE, targets) === true,
      };
      handlers.set(handler, route);
    }
    return route;
  }
}
