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
import { ID_SCHEMA, MAX_ID } from '../../common/http/id.pipe';
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

  @ApiProperty({ example: false, description: 'true: the public skill (namespace `default`)' })
  @IsBoolean()
  is_public: boolean;
}

/** Selecting the caller's own `hello-world` skill (the README quickstart's package, published first). */
const PERSONAL_SELECTION = { name: 'hello-world', namespace: 'default', is_public: false };

export const CREATE_TASK_EXAMPLES = {
  task: {
    summary: 'A task on the first team (team 1 on a fresh install)',
    value: { team_id: 1, title: 'Welcome a visitor' },
  },
  withSelection: {
    summary: "A task that also picks the caller's hello-world skill, with a label",
    value: {
      team_id: 1,
      title: 'Welcome a visitor by name',
      skill_selection: [PERSONAL_SELECTION],
      labels: { priority: 'high' },
    },
  },
};

export const EXECUTION_REQUEST_EXAMPLES = {
  resolve: {
    summary: "The task's skills as an executor gets them, nothing stored",
    value: { persist: false },
  },
  message: {
    summary: "One more skill for this message (the caller's hello-world), not persisted",
    value: { additional_skills: [PERSONAL_SELECTION], persist: false },
  },
};

export const CREATE_TOKEN_EXAMPLES = { hour: { summary: 'A token for one hour', value: { ttl_seconds: 3600 } } };

export class CreateTaskDto {
  @ApiProperty({ ...ID_SCHEMA, example: 3, description: 'A team the caller may read (else 404)' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  team_id: number;

  @ApiPropertyOptional({ maxLength: 256, example: 'Summarise the release PDFs' })
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

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { priority: 'high' },
    description:
      'At most 64; `additionalSkills` (a JSON array of names) and `requestedSkillRefs` (a JSON array of selections) are read by the resolver',
  })
  @IsOptional()
  @IsObject()
  @MaxKeys(MAX_LABELS)
  labels?: Record<string, string>;
}

export class TaskDto {
  @ApiProperty({ ...ID_SCHEMA, example: 12 }) id: number;
  @ApiProperty({ ...ID_SCHEMA, example: 3 }) team_id: number;
  @ApiProperty({ ...ID_SCHEMA, example: 1, description: 'The creator' }) owner_user_id: number;
  @ApiProperty({ example: 'team-a', description: "The team's namespace" }) namespace: string;
  @ApiProperty({ type: String, nullable: true, example: 'Summarise the release PDFs' }) title: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: {
      priority: 'high',
      additionalSkills: '["pdf-tools"]',
      requestedSkillRefs: '[{"name":"pdf-tools","namespace":"default","is_public":false}]',
    },
  })
  labels: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class TaskListDto {
  @ApiProperty({ type: [TaskDto] }) items: TaskDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class TaskListQuery extends NamespacePageQuery {}

export class CreateTokenDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 60,
    maximum: 604_800,
    default: 86_400,
    description: 'Lifetime in seconds: 60 s to 7 days, 24 h by default',
  })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(604_800)
  ttl_seconds?: number;
}

export class TaskTokenDto {
  @ApiProperty({ example: 'srt_Qm7…', description: 'Shown once; send it like an API key' }) token: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

export class ExecutionCreatedDto {
  @ApiProperty({ ...ID_SCHEMA, example: 12 }) task_id: number;
  @ApiProperty({ ...ID_SCHEMA, example: 4 }) execution_id: number;
}
