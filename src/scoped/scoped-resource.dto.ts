// The fields every ghost, bot, team and subscription shares, in its body and in its answer.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { ID_SCHEMA } from '../common/http/id.pipe';
import { ScopedResourceEntity } from './scoped-resource.entity';

/** The writable fields shared by POST and PUT bodies. */
export class ScopedBodyDto {
  @ApiProperty({ minLength: 1, maxLength: 128 })
  @IsString()
  @Length(1, 128)
  name: string;

  @ApiPropertyOptional({
    default: 'default',
    description: 'POST: `default` (personal) or a group name. PUT: when sent, must be the current namespace',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;
}

export class ScopedResourceDto {
  @ApiProperty({ ...ID_SCHEMA, example: 1 }) id: number;
  @ApiProperty({ example: 'release-notes' }) name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty({ ...ID_SCHEMA, example: 1, description: 'The creator' }) owner_user_id: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function scopedFields(entity: ScopedResourceEntity): ScopedResourceDto {
  return {
    id: entity.id,
    name: entity.name,
    namespace: entity.namespace,
    owner_user_id: entity.ownerUserId,
    created_at: entity.createdAt.toISOString(),
    updated_at: entity.updatedAt.toISOString(),
  };
}
