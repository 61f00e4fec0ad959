import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { Request } from 'express';
import { Principal, UserPrincipal } from './principal';

export const PUBLIC_ROUTE = 'auth:public';
export const TASK_TOKEN_ROUTE = 'auth:task-token';

/** No credentials needed (health, docs). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/** Task tokens may call this route too; the handler checks the task. Other routes answer 404 to tokens. */
export const AllowTaskToken = (): MethodDecorator & ClassDecorator => SetMetadata(TASK_TOKEN_ROUTE, true);

export interface AuthenticatedRequest extends Request {
  principal?: Principal;
}

/** The calling user, on routes that task tokens may not call. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): UserPrincipal => {
  const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal || principal.kind !== 'user') throw new Error('CurrentUser used on a route open to task tokens');
  return principal;
});

/** The caller the guard admitted, user or task token; for a handler that reads it from the request itself. */
export function principalOf(req: AuthenticatedRequest): Principal {
  if (!req.principal) throw new Error('CurrentPrincipal used on a public route');
  return req.principal;
}

/** The caller, user or task token, on routes marked @AllowTaskToken(). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal =>
  principalOf(ctx.switchToHttp().getRequest<AuthenticatedRequest>()),
);
