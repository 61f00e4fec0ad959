import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { AUDIT_TARGET_TYPES, AUDIT_VERBS, type AuditTargetType } from '../../common/audit/audit-log';
import { ID_SCHEMA, MAX_ID } from '../../common/http/id.pipe';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../common/http/pagination';

/** `<target_type>.<verb>` with a known target type and verb. */
const ACTION = new RegExp(`^(${AUDIT_TARGET_TYPES.join('|')})\\.(${AUDIT_VERBS.join('|')})$`);
const CURSOR_MESSAGE = { message: 'cursor must be a cursor returned by a previous page' };

export class AuditEventQuery {
  @ApiPropertyOptional({ ...ID_SCHEMA, description: 'Only changes made by this user' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  actor_user_id?: number;

  @ApiPropertyOptional({ example: 'skill.delete', description: '`<target_type>.<verb>`' })
  @IsOptional()
  @IsString()
  @Matches(ACTION, { message: `action must be <target_type>.<verb> with a verb of ${AUDIT_VERBS.join(', ')}` })
  action?: string;

  @ApiPropertyOptional({ enum: AUDIT_TARGET_TYPES, description: 'Only events about this kind of thing' })
  @IsOptional()
  @IsIn(AUDIT_TARGET_TYPES)
  target_type?: AuditTargetType;

  @ApiPropertyOptional({ ...ID_SCHEMA, description: 'Only changes of the target with this id' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  target_id?: number;

  @ApiPropertyOptional({ description: '`default` or a group name (for Owners: one of theirs)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'The `next_cursor` of the previous page' })
  @IsOptional()
  @Type(() => Number)
  @IsInt(CURSOR_MESSAGE)
  @Min(1, CURSOR_MESSAGE)
  @Max(Number.MAX_SAFE_INTEGER, CURSOR_MESSAGE)
  cursor?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;
}

export class AuditEventDto {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 1, description: 'Event ids outgrow 32 bits' }) id: number;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ ...ID_SCHEMA, nullable: true, example: 1, description: 'Null for changes the service made at boot' })
  actor_user_id: number | null;
  @ApiProperty({ example: 'skill.delete' }) action: string;
  @ApiProperty({ enum: AUDIT_TARGET_TYPES, example: 'skill' }) target_type: AuditTargetType;
  @ApiProperty({ ...ID_SCHEMA, example: 11 }) target_id: number;
  @ApiProperty({ type: String, nullable: true, description: 'Null for users and API keys' })
  namespace: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      name: 'pdf-tools',
      is_public: false,
      force: true,
      referrers: { ghosts: [3], subscriptions: [], tasks: [7] },
    },
  })
  details: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, description: 'The X-Request-Id of the change; null at boot' })
  request_id: string | null;
}

export class AuditEventListDto {
  @ApiProperty({ type: [AuditEventDto] }) items: AuditEventDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}
