import { Injectable, PipeTransform } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';

export const MAX_ID = 2_147_483_647;

export function parseId(value: unknown): number | null {
  if (typeof value !== 'string' || !/^[1-9]\d{0,9}$/.test(value)) return null;
  const id = Number(value);
  return id <= MAX_ID ? id : null;
}

/** A path id that is not a positive 32-bit integer names nothing: 404, like a missing row. */
@Injectable()
export class IdPipe implements PipeTransform<string, number> {
  protected readonly message: string = 'Not found';

  transform(value: string): number {
    const id = parseId(value);
    if (id === null) throw DomainError.notFound(this.message);
    return id;
  }
}

/** Task routes say `Task not found`, for a malformed id as for a missing or unreadable task. */
@Injectable()
export class TaskIdPipe extends IdPipe {
  protected override readonly message = 'Task not found';
}

/** How the OpenAPI document describes an id, in paths, queries and bodies alike. */
export const ID_SCHEMA = { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_ID } as const;
