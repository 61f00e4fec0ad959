import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { NamespacePageQuery } from '../../common/http/pagination';
import { MaxItems, MaxKeys } from '../../common/http/input-limits';
import { MAX_LABELS, MAX_SELECTIONS } from '../task-labels';

/** An explicit selection: exactly one scope, no fallback. */
export class SkillSelectionDto {
  @ApiProperty({ example: 'pdf-tools' })
  @IsString()
  @Length(1, 64)
  name: string;

  @ApiProperty({ example: 'default', description: '`default` (personal) or a group name' })
  @IsString()
  @Length(1, 200)
  namespace: string;

  @ApiProperty()
  @IsBoolean()
  is_public: boolean;
}

export class CreateTaskDto {
  @ApiProperty()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  team_id: number;

  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  title?: string;

  @ApiPropertyOptional({ type: [SkillSelectionDto], description: 'Written as the selection labels; wins over them' })
  @IsOptional()
  @MaxItems(MAX_SELECTIONS)
  @ValidateNested({ each: true })
  @Type(() => SkillSelectionDto)
  skill_selection?: SkillSelectionDto[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  @MaxKeys(MAX_LABELS)
  labels?: Record<string, string>;
}

export class TaskDto {
  @ApiProperty() id: number;
  @ApiProperty() team_id: number;
  @ApiProperty() owner_user_id: number;
  @ApiProperty() namespace: string;
  @ApiProperty({ type: String, nullable: true }) title: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class TaskListDto {
  @ApiProperty({ type: [TaskDto] }) items: TaskDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class TaskListQuery extends NamespacePageQuery {}

export class CreateTokenDto {
  @ApiPropertyOptional({ minimum: 60, maximum: 604_800, default: 86_400 })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(604_800)
  ttl_seconds?: number;
}

export class TaskTokenDto {
  @ApiProperty({ description: 'Shown once; send it like an API key' }) token: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

export class ExecutionCreatedDto {
  @ApiProperty() task_id: number;
  @ApiProperty() execution_id: number;
}
