import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_ID } from '../../common/http/id.pipe';
import { MAX_STATUS_MESSAGE_CHARS, VERSION_STATUSES, type VersionStatus } from '../../resolver';
import { CONTENT_HASH_EXAMPLE, VERSION_SCHEMA } from './skill.dto';

/** PATCH /skills/{id}/versions/{version} (docs/resolution.md#version-lifecycle). */
export class UpdateVersionStatusDto {
  @ApiProperty({
    enum: VERSION_STATUSES,
    example: 'deprecated',
    description: '`revoked` is final; `yanked` may return to `active` or `deprecated`',
  })
  @IsIn(VERSION_STATUSES)
  status: VersionStatus;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_STATUS_MESSAGE_CHARS,
    example: 'Use version 4: version 3 breaks on Windows',
    description: 'Why; omitted or null: no message',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_STATUS_MESSAGE_CHARS)
  message?: string | null;
}

/** PUT /skills/{id}/tags/{tag}. */
export class PutTagDto {
  @ApiProperty({ ...VERSION_SCHEMA, example: 3, description: 'An active or deprecated version of the skill' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  version: number;
}

export class TagDto {
  @ApiProperty({ example: 'stable' }) tag: string;
  @ApiProperty({ ...VERSION_SCHEMA, example: 3 }) version: number;
  @ApiProperty({ example: CONTENT_HASH_EXAMPLE }) content_hash: string;
}

export class TagListDto {
  @ApiProperty({ type: [TagDto], description: 'By tag name' }) items: TagDto[];
}
