// Every request that may write (anything but GET and HEAD) moves the change generation when it
// ends, before its answer is sent, so this process never serves a cached answer older than a
// write it has acknowledged. Routes that say they write less do less: a new row changes nothing
// cached, a ghost's row drops the answers that read that ghost.
import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Request } from 'express';
import { Observable, tap } from 'rxjs';
import { ChangeGeneration } from './change-generation';

const READ_ONLY_ROUTE = 'cache:read-only-route';
const NARROW_WRITE = 'cache:narrow-write';

/** What a route writes, when that is narrower than "anything". */
type NarrowWrite = { kind: 'new-row' } | { kind: 'ghost'; param: string } | { kind: 'self' };

/**
 * A POST that only computes an answer and writes nothing (tool-check, called on every tool call of
 * an agent): it leaves the caches as they are.
 */
export const ReadOnlyRoute = (): MethodDecorator => SetMetadata(READ_ONLY_ROUTE, true);

/**
 * A route that only inserts a row no cached answer can depend on yet (a new task; a new ghost,
 * which is on no team until a bot names it; a new task token, which no request presented yet): it
 * leaves the caches as they are.
 */
export const NewRowRoute = (): MethodDecorator => SetMetadata(NARROW_WRITE, { kind: 'new-row' } satisfies NarrowWrite);

/** A route that writes only the row of the ghost in path parameter `param`: the answers that read it are dropped. */
export const GhostWriteRoute = (param = 'id'): MethodDecorator =>
  SetMetadata(NARROW_WRITE, { kind: 'ghost', param } satisfies NarrowWrite);

/**
 * A route that writes only skill bindings and, once they are committed, tells ChangeGeneration
 * itself whose they were (ChangeGeneration.bindingChanged): on success nothing more is dropped.
 * A failure drops everything, as any write's does.
 */
export const SelfInvalidatingRoute = (): MethodDecorator =>
  SetMetadata(NARROW_WRITE, { kind: 'self' } satisfies NarrowWrite);

@Injectable()
export class WriteInvalidationInterceptor implements NestInterceptor {
  constructor(
    private readonly changes: ChangeGeneration,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.method === 'GET' || req.method === 'HEAD') return next.handle();
    if (this.reflector.get<boolean>(READ_ONLY_ROUTE, context.getHandler())) return next.handle();
    const narrow = this.reflector.get<NarrowWrite | undefined>(NARROW_WRITE, context.getHandler());
    if (narrow?.kind === 'new-row') return next.handle();
    if (narrow?.kind === 'self') return next.handle().pipe(tap({ error: () => this.changes.bump() }));
    const ghostId = narrow?.kind === 'ghost' ? Number(req.params[narrow.param]) : NaN;
    const changed =
      Number.isSafeInteger(ghostId) && ghostId > 0
        ? () => this.changes.ghostChanged(ghostId)
        : () => this.changes.bump();
    return next.handle().pipe(tap({ next: changed, error: changed }));
  }
}
