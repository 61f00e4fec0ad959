// Cursor pagination shared by every list: ordered by id, the cursor is the last id returned.
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'The `next_cursor` of the previous page' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'cursor must be a cursor returned by a previous page' })
  @Min(0, { message: 'cursor must be a cursor returned by a previous page' })
  @Max(2_147_483_647, { message: 'cursor must be a cursor returned by a previous page' })
  cursor?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;
}

/** A page of a list that can be narrowed to one namespace. */
export class NamespacePageQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only this namespace: `default` or a group name' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** `rows` were fetched with `limit + 1`: the extra row only says that another page exists. */
export function toPage<R extends { id: number }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const items = rows.slice(0, limit);
  const more = rows.length > limit;
  return { items: items.map(map), next_cursor: more ? String(items[items.length - 1].id) : null };
}
