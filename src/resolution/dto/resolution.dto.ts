import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MaxItems } from '../../common/http/input-limits';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { ALLOWED_TOOLS_PROPERTY, CONTENT_HASH_EXAMPLE, RequiresDto, VERSION_SCHEMA } from '../../skills/dto/skill.dto';
import { SkillSelectionDto } from '../../tasks/dto/task.dto';
import { VERSION_STATUSES, type VersionStatus } from '../../resolver';

export const MAX_MESSAGE_SELECTIONS = 50;

export class SkillRefDto {
  @ApiProperty({ ...ID_SCHEMA, example: 11 }) skill_id: number;
  @ApiProperty({ example: 'team-a' }) namespace: string;
  @ApiProperty({ example: false }) is_public: boolean;
  @ApiProperty({ ...VERSION_SCHEMA, example: 2 }) version: number;
  @ApiProperty({ example: CONTENT_HASH_EXAMPLE, description: "The zip's sha256: check the download against it" })
  content_hash: string;
  @ApiProperty({ example: false, description: 'true: a stored ref pins this version' }) pinned: boolean;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'The tag the ref followed; null when none' })
  tag: string | null;
  @ApiProperty({
    enum: VERSION_STATUSES,
    example: 'active',
    description: 'The status of that version (docs/resolution.md#version-lifecycle)',
  })
  status: VersionStatus;
  @ApiProperty(ALLOWED_TOOLS_PROPERTY) allowed_tools: string[] | null;
  @ApiProperty({ type: RequiresDto }) requires: RequiresDto;
}

export class UnresolvedDto {
  @ApiProperty({ example: 'gone' }) name: string;
  @ApiProperty({ enum: ['binding', 'ghost', 'subscription', 'task', 'message'] }) source: string;
  @ApiProperty({
    enum: [
      'NOT_FOUND',
      'FORBIDDEN',
      'DELETED',
      'NAME_MISMATCH',
      'VERSION_NOT_FOUND',
      'REVOKED',
      'NO_ACTIVE_VERSION',
      'TAG_NOT_FOUND',
    ],
  })
  reason: string;
}

const REF_EXAMPLE = (skill_id: number, namespace: string) => ({
  skill_id,
  namespace,
  is_public: false,
  version: 2,
  content_hash: CONTENT_HASH_EXAMPLE,
  pinned: false,
  tag: null,
  status: 'active',
  allowed_tools: null,
  requires: { bins: [], env: [] },
});
const SKILL_REFS_EXAMPLE = {
  'ghost-skill': REF_EXAMPLE(11, 'team-a'),
  'manual-skill': REF_EXAMPLE(22, 'default'),
  'sub-skill': REF_EXAMPLE(33, 'team-a'),
};
const PRELOAD_REFS_EXAMPLE = {
  'manual-skill': SKILL_REFS_EXAMPLE['manual-skill'],
  'sub-skill': SKILL_REFS_EXAMPLE['sub-skill'],
};
const FINGERPRINT_EXAMPLE = 'sha256:5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592';

/** A map from skill name to its ref; the example is docs/resolution.md#output's. */
const REF_MAP = (example: object, description: string) =>
  ({ type: 'object', additionalProperties: { $ref: getSchemaPath(SkillRefDto) }, example, description }) as const;

@ApiExtraModels(SkillRefDto)
export class TaskSkillsDto {
  @ApiProperty({ ...ID_SCHEMA, example: 12 }) task_id: number;
  @ApiProperty({ ...ID_SCHEMA, example: 3, description: "The task's team, even when it was deleted" }) team_id: number;
  @ApiProperty({ example: 'team-a', description: '`default` when the team is gone' }) team_namespace: string;
  @ApiProperty({ type: [String], example: ['ghost-skill', 'gone', 'manual-skill', 'sub-skill'], description: 'Sorted' })
  skills: string[];
  @ApiProperty({ type: [String], example: ['manual-skill', 'sub-skill'], description: 'Sorted; each is in `skills`' })
  preload_skills: string[];
  @ApiProperty(REF_MAP(SKILL_REFS_EXAMPLE, 'A ref for every resolved name of `skills`'))
  skill_refs: Record<string, SkillRefDto>;
  @ApiProperty(REF_MAP(PRELOAD_REFS_EXAMPLE, 'A ref for every resolved name of `preload_skills`'))
  preload_skill_refs: Record<string, SkillRefDto>;
  @ApiProperty({
    type: [UnresolvedDto],
    example: [{ name: 'gone', source: 'ghost', reason: 'DELETED' }],
    description: 'One entry per name that did not resolve, from the source that decided it',
  })
  unresolved: UnresolvedDto[];
  @ApiProperty({
    example: FINGERPRINT_EXAMPLE,
    description: 'sha256 of the RFC 8785 JSON of the other fields; the ETag',
  })
  fingerprint: string;
}

export class ExecutionRequestBody {
  @ApiPropertyOptional({
    type: [SkillSelectionDto],
    maxItems: MAX_MESSAGE_SELECTIONS,
    description: "The message's selections: the top source, resolved as the caller",
  })
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
  @ApiProperty({ ...ID_SCHEMA, example: 12 }) task_id: number;
  @ApiProperty({ ...ID_SCHEMA, example: 3 }) team_id: number;
  @ApiProperty({ example: 'team-a' }) team_namespace: string;
  @ApiProperty({
    type: [String],
    example: ['ghost-skill', 'gone', 'manual-skill', 'sub-skill'],
    description: 'The resolved `skills`',
  })
  skill_names: string[];
  @ApiProperty({ type: [String], example: ['manual-skill', 'sub-skill'] }) preload_skills: string[];
  @ApiProperty({
    type: [String],
    example: ['manual-skill'],
    description: "Names chosen explicitly: the task's selections in label order, then the message's",
  })
  user_selected_skills: string[];
  @ApiProperty(REF_MAP(SKILL_REFS_EXAMPLE, 'A ref for every resolved name of `skill_names`'))
  skill_refs: Record<string, SkillRefDto>;
  @ApiProperty(REF_MAP(PRELOAD_REFS_EXAMPLE, 'A ref for every resolved name of `preload_skills`'))
  preload_skill_refs: Record<string, SkillRefDto>;
  @ApiProperty({ type: [UnresolvedDto], example: [{ name: 'gone', source: 'ghost', reason: 'DELETED' }] })
  unresolved: UnresolvedDto[];
  @ApiProperty({
    example: FINGERPRINT_EXAMPLE,
    description: 'With no message, the fingerprint of GET /tasks/{id}/skills',
  })
  fingerprint: string;
}

/** Query ids are read as strings: one that is no positive 32-bit integer names nothing (404). */
const QUERY_ID = ID_SCHEMA;

export class WegentListQuery {
  @ApiProperty({ example: 'pdf-tools', description: 'The skill name' }) @IsString() @MaxLength(64) name: string;
  @ApiPropertyOptional({ default: 'default', description: 'Look the name up in this namespace (without task_id)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;
  @ApiPropertyOptional({ ...QUERY_ID, description: 'Resolve the name as this task does (404 when unreadable)' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  task_id?: string;
}

export class WegentDownloadQuery {
  @ApiPropertyOptional({ description: 'Accepted for Wegent; the skill id decides' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;
  @ApiPropertyOptional({ ...QUERY_ID, description: "A task token's task (the default for a token)" })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  task_id?: string;
  @ApiPropertyOptional({
    ...VERSION_SCHEMA,
    description: 'A version number; the latest (for a token: the resolved one) when omitted',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  version?: string;
}

class WegentSkillLabelsDto {
  @ApiProperty({ example: '11', description: 'The skill id, as a string' }) id: string;
}

class WegentSkillMetadataDto {
  @ApiProperty({ example: 'pdf-tools' }) name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty({ type: WegentSkillLabelsDto }) labels: WegentSkillLabelsDto;
}

class WegentSkillSpecDto {
  @ApiProperty({ example: 'Fill in and read PDF forms.' }) description: string;
}

class WegentSkillStatusDto {
  @ApiProperty({
    example: CONTENT_HASH_EXAMPLE.slice('sha256:'.length),
    description: 'The hex of the content hash',
  })
  fileHash: string;
}

/** A skill as a Wegent `Skill` kind. */
export class WegentSkillDto {
  @ApiProperty({ enum: ['agent.wecode.io/v1'] }) apiVersion: string;
  @ApiProperty({ enum: ['Skill'] }) kind: string;
  @ApiProperty({ type: WegentSkillMetadataDto }) metadata: WegentSkillMetadataDto;
  @ApiProperty({ type: WegentSkillSpecDto }) spec: WegentSkillSpecDto;
  @ApiProperty({ type: WegentSkillStatusDto }) status: WegentSkillStatusDto;
}

export class WegentSkillListDto {
  @ApiProperty({ type: [WegentSkillDto], maxItems: 1 }) items: WegentSkillDto[];
}
