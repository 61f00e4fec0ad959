// Every request that may write (anything but GET and HEAD) moves the change generation when it
// ends, before its answer is sent, so this process never serves a cached answer older than a
// write it has acknowledged.
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Request } from 'express';
import { Observable, tap } from 'rxjs';
import { ChangeGeneration } from './change-generation';

@Injectable()
export class WriteInvalidationInterceptor implements NestInterceptor {
  constructor(private readonly changes: ChangeGeneration) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const method = context.switchToHttp().getRequest<Request>().method;
    if (method === 'GET' || method === 'HEAD') return next.handle();
    return next.handle().pipe(
      tap({
        next: () => this.changes.bump(),
        error: () => this.changes.bump(),
      }),
    );
  }
}
