import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ApiBodyOptions, ApiPropertyOptions } from '@nestjs/swagger';

type SchemaObject = NonNullable<Extract<ApiBodyOptions, { schema?: unknown }>['schema']> & {
  properties?: Record<string, unknown>;
};
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { MAX_ID } from '../../common/http/id.pipe';
import { NamespacePageQuery } from '../../common/http/pagination';

/** CONTRACT §7.1: what a version needs in the sandbox that runs it. */
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

export class VersionDto {
  @ApiProperty() version: number;
  @ApiProperty({ example: 'sha256:9f86d0…', description: 'sha256 of the stored zip bytes; the download ETag' })
  content_hash: string;
  @ApiProperty({ description: 'sha256 of the RFC 8785 JSON of the file list' }) revision: string;
  @ApiProperty({ description: 'zip bytes' }) size: number;
  @ApiProperty() file_count: number;
  @ApiProperty(ALLOWED_TOOLS_PROPERTY) allowed_tools: string[] | null;
  @ApiProperty({ type: RequiresDto }) requires: RequiresDto;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class SkillDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty() is_public: boolean;
  @ApiProperty({ type: Number, nullable: true }) owner_user_id: number | null;
  @ApiProperty() description: string;
  @ApiProperty({ type: VersionDto }) latest_version: VersionDto;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ProblemDto {
  @ApiProperty({ example: 'NAME_INVALID' }) code: string;
  @ApiProperty() message: string;
  @ApiPropertyOptional() field?: string;
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
  @ApiProperty() path: string;
  @ApiProperty() size: number;
  @ApiProperty({ description: 'bare hex' }) sha256: string;
  @ApiProperty({ enum: ['755', '644'] }) mode: string;
}

export class ManifestDto {
  @ApiProperty() skill_id: number;
  @ApiProperty() name: string;
  @ApiProperty() namespace: string;
  @ApiProperty() is_public: boolean;
  @ApiProperty() version: number;
  @ApiProperty() content_hash: string;
  @ApiProperty() revision: string;
  @ApiProperty({ type: [ManifestFileDto] }) files: ManifestFileDto[];
  @ApiProperty({ type: 'object', additionalProperties: true }) frontmatter: object;
  @ApiProperty({ description: 'The text of SKILL.md, so activating a skill is one call' }) skill_md: string;
  @ApiProperty(ALLOWED_TOOLS_PROPERTY) allowed_tools: string[] | null;
  @ApiProperty({ type: RequiresDto }) requires: RequiresDto;
}

export class PublishSkillForm {
  @ApiPropertyOptional({ default: 'default', description: '`default` (personal) or a group name' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: '`true`: a public skill (admins, namespace `default`)' })
  @IsOptional()
  @IsIn(['true', 'false'])
  public?: 'true' | 'false';
}

export class VersionQuery {
  @ApiPropertyOptional({ description: 'A version number; the latest when omitted' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  version?: number;
}

export class SkillListQuery extends NamespacePageQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @IsOptional() @IsIn(['true', 'false']) is_public?: 'true' | 'false';
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) name?: string;
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

export const PUBLISH_FORM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: {
    file: FILE_PROPERTY,
    namespace: { type: 'string', default: 'default' },
    public: { type: 'string', enum: ['true', 'false'] },
  },
};

export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SkillNameMatches = (): PropertyDecorator =>
  Matches(SKILL_NAME_PATTERN, { message: 'name must be 1-64 characters of a-z, 0-9 and single inner hyphens' });
