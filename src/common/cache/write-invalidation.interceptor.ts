// Every request that may write (anything but GET and HEAD) moves the change generation when it
// ends, before its answer is sent, so this process never serves a cached answer older than a
// write it has acknowledged.
import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Request } from 'express';
import { Observable, tap } from 'rxjs';
import { ChangeGeneration } from './change-generation';

const READ_ONLY_ROUTE = 'cache:read-only-route';

/**
 * A POST that only computes an answer and writes nothing (tool-check, called on every tool call of
 * an agent): it leaves the caches as they are.
 */
export const ReadOnlyRoute = (): MethodDecorator => SetMetadata(READ_ONLY_ROUTE, true);

@Injectable()
export class WriteInvalidationInterceptor implements NestInterceptor {
  constructor(
    private readonly changes: ChangeGeneration,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const method = context.switchToHttp().getRequest<Request>().method;
    if (method === 'GET' || method === 'HEAD') return next.handle();
    if (this.reflector.get<boolean>(READ_ONLY_ROUTE, context.getHandler())) return next.handle();
    return next.handle().pipe(
      tap({
        next: () => this.changes.bump(),
        error: () => this.changes.bump(),
      }),
    );
  }
}
