import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MaxItems } from '../../common/http/input-limits';
import { ALLOWED_TOOLS_PROPERTY, RequiresDto } from '../../skills/dto/skill.dto';
import { SkillSelectionDto } from '../../tasks/dto/task.dto';

export const MAX_MESSAGE_SELECTIONS = 50;

export class SkillRefDto {
  @ApiProperty() skill_id: number;
  @ApiProperty() namespace: string;
  @ApiProperty() is_public: boolean;
  @ApiProperty() version: number;
  @ApiProperty({ example: 'sha256:…' }) content_hash: string;
  @ApiProperty() pinned: boolean;
  @ApiProperty(ALLOWED_TOOLS_PROPERTY) allowed_tools: string[] | null;
  @ApiProperty({ type: RequiresDto }) requires: RequiresDto;
}

export class UnresolvedDto {
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['ghost', 'subscription', 'task', 'message'] }) source: string;
  @ApiProperty({ enum: ['NOT_FOUND', 'FORBIDDEN', 'DELETED', 'NAME_MISMATCH', 'VERSION_NOT_FOUND'] }) reason: string;
}

const REF_MAP = { type: 'object', additionalProperties: { $ref: getSchemaPath(SkillRefDto) } } as const;

@ApiExtraModels(SkillRefDto)
export class TaskSkillsDto {
  @ApiProperty() task_id: number;
  @ApiProperty() team_id: number;
  @ApiProperty() team_namespace: string;
  @ApiProperty({ type: [String] }) skills: string[];
  @ApiProperty({ type: [String] }) preload_skills: string[];
  @ApiProperty(REF_MAP) skill_refs: Record<string, SkillRefDto>;
  @ApiProperty(REF_MAP) preload_skill_refs: Record<string, SkillRefDto>;
  @ApiProperty({ type: [UnresolvedDto] }) unresolved: UnresolvedDto[];
  @ApiProperty({ description: 'sha256 of the RFC 8785 JSON of the other fields; the ETag' }) fingerprint: string;
}

export class ExecutionRequestBody {
  @ApiPropertyOptional({ type: [SkillSelectionDto], maxItems: MAX_MESSAGE_SELECTIONS })
  @IsOptional()
  @MaxItems(MAX_MESSAGE_SELECTIONS)
  @ValidateNested({ each: true })
  @Type(() => SkillSelectionDto)
  additional_skills?: SkillSelectionDto[];

  @ApiPropertyOptional({ default: false, description: "Write the message's selections into the task labels" })
  @IsOptional()
  @IsBoolean()
  persist?: boolean;
}

@ApiExtraModels(SkillRefDto)
export class ExecutionRequestDto {
  @ApiProperty() task_id: number;
  @ApiProperty() team_id: number;
  @ApiProperty() team_namespace: string;
  @ApiProperty({ type: [String] }) skill_names: string[];
  @ApiProperty({ type: [String] }) preload_skills: string[];
  @ApiProperty({ type: [String] }) user_selected_skills: string[];
  @ApiProperty(REF_MAP) skill_refs: Record<string, SkillRefDto>;
  @ApiProperty(REF_MAP) preload_skill_refs: Record<string, SkillRefDto>;
  @ApiProperty({ type: [UnresolvedDto] }) unresolved: UnresolvedDto[];
  @ApiProperty() fingerprint: string;
}

export class WegentListQuery {
  @ApiProperty({ description: 'The skill name' }) @IsString() @MaxLength(64) name: string;
  @ApiPropertyOptional({ default: 'default' }) @IsOptional() @IsString() @MaxLength(200) namespace?: string;
  @ApiPropertyOptional({ description: 'Resolve the name as this task does' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  task_id?: string;
}

export class WegentDownloadQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(200) namespace?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(10) task_id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(10) version?: string;
}
