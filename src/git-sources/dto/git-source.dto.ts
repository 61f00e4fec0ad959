import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { ProblemDto, VERSION_SCHEMA, VersionSourceDto } from '../../skills/dto/skill.dto';

export const IMPORT_STATUSES = ['created', 'versioned', 'unchanged', 'invalid'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export class ImportSkillsBody {
  @ApiProperty({
    example: 'https://github.com/acme/skills.git',
    description: 'An https:// URL of a repository on an allowed host (or http:// where allowed), without credentials',
    maxLength: 2048,
  })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional({
    example: 'main',
    description: "A branch, a tag or a full commit id; the remote's HEAD when omitted",
    maxLength: 256,
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  ref?: string;

  @ApiPropertyOptional({
    example: 'skills',
    description: 'A folder of the repository, relative to its root; the root when omitted',
    maxLength: 1024,
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  path?: string;

  @ApiPropertyOptional({ default: 'default', description: '`default` (personal) or a group name', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;

  @ApiPropertyOptional({ default: false, description: 'Public skills (admins only, namespace `default`)' })
  @IsOptional()
  @IsBoolean()
  public?: boolean;
}

export class ImportItemDto {
  @ApiProperty({ example: 'pdf-tools', description: "The skill's name; the folder's name when the package has none" })
  name: string;
  @ApiProperty({ example: 'skills/pdf-tools', description: "The skill's folder in the repository; '' for its root" })
  path: string;
  @ApiProperty({ ...ID_SCHEMA, nullable: true, example: 11, description: 'null when invalid' })
  skill_id: number | null;
  @ApiProperty({ ...VERSION_SCHEMA, nullable: true, example: 1, description: 'The latest version; null when invalid' })
  version: number | null;
  @ApiProperty({
    enum: IMPORT_STATUSES,
    description:
      '`created`: a new skill; `versioned`: a new version of a skill of that name in the scope; `unchanged`: the same files as its latest version, nothing written; `invalid`: not imported (see `errors`)',
  })
  status: ImportStatus;
  @ApiPropertyOptional({ type: [ProblemDto], description: 'Why the skill was not imported (status `invalid` only)' })
  errors?: ProblemDto[];
  @ApiProperty({ type: [ProblemDto], description: 'Warnings of the package, and the submodules skipped' })
  warnings: ProblemDto[];
}

export class ImportResultDto {
  @ApiProperty({ type: [ImportItemDto] }) items: ImportItemDto[];
}

export class SkillSourceDto {
  @ApiProperty({
    type: VersionSourceDto,
    description: 'Where the skill is published from; `commit` is the one it was last published (or found unchanged) at',
  })
  source: VersionSourceDto;
  @ApiProperty({ type: String, nullable: true, description: 'What the ref named at the last check (or import)' })
  latest_commit: string | null;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: "Whether the skill's folder differed at `latest_commit` from the published one",
  })
  behind: boolean | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) checked_at: string | null;
}
