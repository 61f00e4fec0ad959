import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsArray, IsOptional, IsString, Length } from 'class-validator';
import { Distinct, MaxItems, MaxKeys } from '../../common/http/input-limits';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { NamespacePageQuery } from '../../common/http/pagination';
import { ScopedBodyDto, ScopedResourceDto } from '../../scoped/scoped-resource.dto';
import { CONTENT_HASH_EXAMPLE, VERSION_SCHEMA } from '../../skills/dto/skill.dto';
import { VERSION_STATUSES, type VersionStatus } from '../../resolver';
import { GhostSkillRefInputDto, MAX_REF_KEYS, MAX_SKILL_NAME, SkillRefMapProperty } from './skill-ref-input.dto';

export const MAX_GHOST_SKILLS = 100;

const INPUT_REF_MAP = {
  type: 'object',
  maxProperties: MAX_REF_KEYS,
  additionalProperties: { $ref: getSchemaPath(GhostSkillRefInputDto) },
} as const;

/** The whole writable body, for POST and PUT alike. */
@ApiExtraModels(GhostSkillRefInputDto)
export class GhostBodyDto extends ScopedBodyDto {
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_GHOST_SKILLS,
    example: ['pdf-tools'],
    description: 'Skill names, each once',
  })
  @IsOptional()
  @IsArray()
  @MaxItems(MAX_GHOST_SKILLS)
  @Distinct(undefined, { message: 'skills must not repeat a name' })
  @IsString({ each: true })
  @Length(1, MAX_SKILL_NAME, { each: true })
  skills?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_GHOST_SKILLS,
    example: ['pdf-tools'],
    description: 'Names from `skills` to preload',
  })
  @IsOptional()
  @IsArray()
  @MaxItems(MAX_GHOST_SKILLS)
  @Distinct(undefined, { message: 'preload_skills must not repeat a name' })
  @IsString({ each: true })
  @Length(1, MAX_SKILL_NAME, { each: true })
  preload_skills?: string[];

  @ApiPropertyOptional({
    ...INPUT_REF_MAP,
    example: { 'pdf-tools': { skill_id: 11 } },
    description: 'Refs of names in `skills`, keyed by name; other names are looked up',
  })
  @IsOptional()
  @MaxKeys(MAX_REF_KEYS)
  @SkillRefMapProperty()
  skill_refs?: Map<string, GhostSkillRefInputDto>;

  @ApiPropertyOptional({
    ...INPUT_REF_MAP,
    example: {},
    description: 'Refs of names in `preload_skills`, keyed by name',
  })
  @IsOptional()
  @MaxKeys(MAX_REF_KEYS)
  @SkillRefMapProperty()
  preload_skill_refs?: Map<string, GhostSkillRefInputDto>;
}

/**
 * A stored ref as it reads now: the latest version unless pinned. A ref whose pinned version is
 * gone keeps that version number with a null `content_hash`; a deleted skill shows its last state.
 */
export class GhostSkillRefDto {
  @ApiProperty({ ...ID_SCHEMA, example: 11 }) skill_id: number;
  @ApiProperty({ type: String, nullable: true, description: 'null only when the skill row is gone' })
  namespace: string | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'null only when the skill row is gone' })
  is_public: boolean | null;
  @ApiProperty({ ...VERSION_SCHEMA, nullable: true, description: 'null only when the skill row is gone' })
  version: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: CONTENT_HASH_EXAMPLE,
    description: 'null when that version is gone',
  })
  content_hash: string | null;
  @ApiProperty({ description: 'false: follows the latest version or its tag (sending it back keeps it so)' })
  pinned: boolean;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'The tag the ref follows; null when none' })
  tag: string | null;
  @ApiProperty({
    enum: VERSION_STATUSES,
    nullable: true,
    example: 'active',
    description: 'The status of the version it reaches; null when it reaches none',
  })
  status: VersionStatus | null;
}

const OUTPUT_REF_MAP = { type: 'object', additionalProperties: { $ref: getSchemaPath(GhostSkillRefDto) } } as const;

@ApiExtraModels(GhostSkillRefDto)
export class GhostDto extends ScopedResourceDto {
  @ApiProperty({ type: [String], example: ['pdf-tools'] }) skills: string[];
  @ApiProperty({ type: [String], example: ['pdf-tools'] }) preload_skills: string[];
  @ApiProperty({
    ...OUTPUT_REF_MAP,
    example: {
      'pdf-tools': {
        skill_id: 11,
        namespace: 'default',
        is_public: false,
        version: 2,
        content_hash: CONTENT_HASH_EXAMPLE,
        pinned: false,
      },
    },
    description: 'A ref for every name in `skills`, keyed by name',
  })
  skill_refs: Record<string, GhostSkillRefDto>;
  @ApiProperty({
    ...OUTPUT_REF_MAP,
    example: {},
    description: 'Refs sent for preload names; others use their `skill_refs` entry',
  })
  preload_skill_refs: Record<string, GhostSkillRefDto>;
}

/**
 * Valid bodies for POST and PUT, in the order a user meets them on a fresh install: a ghost that
 * needs nothing to exist yet, then one preloading the first skill published (the README
 * quickstart's `hello-world`, skill 1) by ref.
 */
export const GHOST_BODY_EXAMPLES = {
  ghost: {
    summary: 'A personal ghost with no skills yet (works on a fresh install)',
    value: { name: 'greeter', namespace: 'default', skills: [], preload_skills: [] },
  },
  withSkill: {
    summary: "A ghost preloading the first skill published (the quickstart's hello-world, skill 1), by ref",
    value: {
      name: 'greeter-with-skill',
      namespace: 'default',
      skills: ['hello-world'],
      preload_skills: ['hello-world'],
      skill_refs: { 'hello-world': { skill_id: 1 } },
    },
  },
};

/** PUT on ghost 1 (`greeter`): the same name, so trying the examples in order never clashes. */
export const GHOST_REPLACE_EXAMPLES = {
  ghost: {
    summary: 'Ghost 1 as it was made, no skills (works on a fresh install)',
    value: { name: 'greeter', namespace: 'default', skills: [], preload_skills: [] },
  },
  withSkill: {
    summary: "Ghost 1 preloading the first skill published (the quickstart's hello-world, skill 1), by ref",
    value: {
      name: 'greeter',
      namespace: 'default',
      skills: ['hello-world'],
      preload_skills: ['hello-world'],
      skill_refs: { 'hello-world': { skill_id: 1 } },
    },
  },
};

export class GhostListDto {
  @ApiProperty({ type: [GhostDto] }) items: GhostDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class GhostListQuery extends NamespacePageQuery {}
