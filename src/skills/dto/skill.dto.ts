import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ApiBodyOptions, ApiPropertyOptions } from '@nestjs/swagger';

type SchemaObject = NonNullable<Extract<ApiBodyOptions, { schema?: unknown }>['schema']> & {
  properties?: Record<string, unknown>;
};
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { SKILL_NAME_PATTERN } from '../../access';
import { ID_SCHEMA, MAX_ID } from '../../common/http/id.pipe';
import { NamespacePageQuery } from '../../common/http/pagination';
import { VERSION_STATUSES, type VersionStatus } from '../../resolver';
import { PROBLEM_CODES, ProblemCode, WARNING_CODES, WarningCode } from '../../package/problem';

/** docs/packages.md#tool-policy-fields: what a version needs in the sandbox that runs it. */
export class RequiresDto {
  @ApiProperty({ type: [String], example: ['git', 'python3'], description: 'Command names, sorted, unique' })
  bins: string[];
  @ApiProperty({ type: [String], example: ['GITHUB_TOKEN'], description: 'Environment variable names, sorted, unique' })
  env: string[];
}

export const ALLOWED_TOOLS_PROPERTY: ApiPropertyOptions = {
  type: [String],
  nullable: true,
  example: ['Bash(git:*)', 'Bash(python *)', 'Read'],
  description:
    'The `allowed-tools` entries as written (trimmed, duplicates dropped, order kept); null when the key is absent (restricts nothing), [] allows no tool',
};

/** A version number: 1, 2, ... */
export const VERSION_SCHEMA = { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_ID } as const;
export const CONTENT_HASH_EXAMPLE = 'sha256:3b1f0c9e5a7d2b4c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5';

/** docs/publishing.md#provenance: where a version imported from git came from. */
export class VersionSourceDto {
  @ApiProperty({ enum: ['git'], example: 'git' }) type: 'git';
  @ApiProperty({ example: 'https://github.com/acme/skills.git', description: 'The repository, as given' })
  url: string;
  @ApiProperty({ example: 'main', description: 'The branch, tag or commit id as given; `HEAD` when none was' })
  ref: string;
  @ApiProperty({
    example: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    description: 'The commit the ref named when the version was published; never changes',
  })
  commit: string;
  @ApiProperty({ example: 'skills/pdf-tools', description: "The skill's folder in the repository; '' for its root" })
  path: string;
}

export class VersionDto {
  @ApiProperty({ ...VERSION_SCHEMA, example: 2 }) version: number;
  @ApiProperty({ example: CONTENT_HASH_EXAMPLE, description: 'sha256 of the stored zip bytes; the download ETag' })
  content_hash: string;
  @ApiProperty({
    example: 'sha256:8c2d5e7f9a1b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5',
    description: 'sha256 of the RFC 8785 JSON of the file list: the same files give the same revision',
  })
  revision: string;
  @ApiProperty({ type: 'integer', example: 2048, description: 'zip bytes' }) size: number;
  @ApiProperty({ type: 'integer', example: 3 }) file_count: number;
  @ApiProperty(ALLOWED_TOOLS_PROPERTY) allowed_tools: string[] | null;
  @ApiProperty({ type: RequiresDto }) requires: RequiresDto;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({
    enum: VERSION_STATUSES,
    example: 'active',
    description: 'docs/resolution.md#version-lifecycle: only active and deprecated versions are followed',
  })
  status: VersionStatus;
  @ApiProperty({ type: String, nullable: true, maxLength: 500, example: null, description: 'Why the status was set' })
  status_message: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null while it never changed' })
  status_changed_at: string | null;
  @ApiProperty({
    type: VersionSourceDto,
    nullable: true,
    description: 'Imported from git: where from; null for uploads',
  })
  source: VersionSourceDto | null;
}

export class SkillDto {
  @ApiProperty({ ...ID_SCHEMA, example: 11 }) id: number;
  @ApiProperty({ example: 'pdf-tools' }) name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty({ example: false }) is_public: boolean;
  @ApiProperty({ ...ID_SCHEMA, nullable: true, example: 1, description: 'null for public skills' }) owner_user_id:
    number | null;
  @ApiProperty({ example: 'Fill in and read PDF forms.' }) description: string;
  @ApiProperty({
    type: VersionDto,
    description: 'The newest active or deprecated version (the newest version when there is none)',
  })
  latest_version: VersionDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { stable: 2 },
    description: 'The version each tag points at',
  })
  tags: Record<string, number>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ProblemDto {
  @ApiProperty({
    enum: [...PROBLEM_CODES, ...WARNING_CODES],
    enumName: 'ProblemCode',
    example: 'NAME_INVALID',
    description:
      `Stable (docs/packages.md#problem-codes). In \`errors\`, which reject the package: ${PROBLEM_CODES.join(', ')}. ` +
      `In \`warnings\`, which do not: ${WARNING_CODES.join(', ')}.`,
  })
  code: ProblemCode | WarningCode;
  @ApiProperty() message: string;
  @ApiPropertyOptional({
    example: 'allowed-tools',
    description: 'The frontmatter key (`metadata.vikingbot.requires` for a nested one) or the zip path concerned',
  })
  field?: string;
}

export class PublishedSkillDto extends SkillDto {
  @ApiProperty({ type: [ProblemDto] }) warnings: ProblemDto[];
}

export class SkillListDto {
  @ApiProperty({ type: [SkillDto] }) items: SkillDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class VersionListDto {
  @ApiProperty({ type: [VersionDto] }) items: VersionDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class ValidationReportDto {
  @ApiProperty() valid: boolean;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: [ProblemDto] }) errors: ProblemDto[];
  @ApiProperty({ type: [ProblemDto] }) warnings: ProblemDto[];
}

export class ManifestFileDto {
  @ApiProperty({ example: 'scripts/fill.py', description: 'Relative to the skill root' }) path: string;
  @ApiProperty({ type: 'integer', description: 'Expanded bytes' }) size: number;
  @ApiProperty({ description: 'bare hex' }) sha256: string;
  @ApiProperty({ enum: ['755', '644'] }) mode: string;
}

export class ManifestDto {
  @ApiProperty({ ...ID_SCHEMA, example: 11 }) skill_id: number;
  @ApiProperty({ example: 'pdf-tools' }) name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty() is_public: boolean;
  @ApiProperty(VERSION_SCHEMA) version: number;
  @ApiProperty({ example: CONTENT_HASH_EXAMPLE }) content_hash: string;
  @ApiProperty() revision: string;
  @ApiProperty({ type: [ManifestFileDto] }) files: ManifestFileDto[];
  @ApiProperty({ type: 'object', additionalProperties: true }) frontmatter: object;
  @ApiProperty({ description: 'The text of SKILL.md, so activating a skill is one call' }) skill_md: string;
  @ApiProperty(ALLOWED_TOOLS_PROPERTY) allowed_tools: string[] | null;
  @ApiProperty({ type: RequiresDto }) requires: RequiresDto;
  @ApiProperty({
    type: VersionSourceDto,
    nullable: true,
    description: 'Imported from git: where from; null for uploads',
  })
  source: VersionSourceDto | null;
}

export class PublishSkillForm {
  @ApiPropertyOptional({ default: 'default', description: '`default` (personal) or a group name' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;

  @ApiPropertyOptional({
    enum: ['false', 'true'],
    default: 'false',
    description: '`true`: a public skill (admins, namespace `default`)',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  public?: 'true' | 'false';
}

export class VersionQuery {
  @ApiPropertyOptional({ ...VERSION_SCHEMA, description: 'A version number; the latest when omitted' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  version?: number;
}

export class SkillListQuery extends NamespacePageQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only public (`true`) or only non-public skills' })
  @IsOptional()
  @IsIn(['true', 'false'])
  is_public?: 'true' | 'false';
  @ApiPropertyOptional({ description: 'Exactly this skill name' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  name?: string;
  @ApiPropertyOptional({ description: 'Case-insensitive literal substring of name or description' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class DeleteSkillQuery {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'Delete even when ghosts, subscriptions or tasks refer to it',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  force?: 'true' | 'false';
}

/** Multipart bodies carry the package in `file`. */
const FILE_PROPERTY: SchemaObject = { type: 'string', format: 'binary', description: 'The skill package (.zip)' };

export const PACKAGE_FORM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: { file: FILE_PROPERTY },
};

/**
 * The publish form. It defaults to a personal skill: Swagger UI preselects a field's default (or the
 * first value of an enum without one), and an admin who only picks a file must not publish for everyone.
 */
export const PUBLISH_FORM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: {
    file: FILE_PROPERTY,
    namespace: {
      type: 'string',
      default: 'default',
      description: '`default` (a personal skill) or a group name where the caller is Developer+',
    },
    public: {
      type: 'string',
      enum: ['false', 'true'],
      default: 'false',
      description: '`true` publishes a public skill, readable by every caller (admins, namespace `default`)',
    },
  },
};

export const SkillNameMatches = (): PropertyDecorator =>
  Matches(SKILL_NAME_PATTERN, { message: 'name must be 1-64 characters of a-z, 0-9 and single inner hyphens' });
