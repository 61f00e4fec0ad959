import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidationArguments,
} from 'class-validator';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, searchQueryProblems } from '../search/search-query-rule';
import { CONTENT_HASH_EXAMPLE, VERSION_SCHEMA } from './skill.dto';

export const SEARCH_DEFAULT_LIMIT = 8;
export const SEARCH_MAX_LIMIT = 50;
export const SEARCH_DEFAULT_MIN_SCORE = 0.35;

/** `q` as search-query-rule.ts bounds it: counted after normalisation (docs/search.md#limits). */
function IsSearchQuery(): PropertyDecorator {
  return ValidateBy({
    name: 'isSearchQuery',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || searchQueryProblems(value).length === 0,
      defaultMessage: (args?: ValidationArguments) =>
        typeof args?.value === 'string' ? searchQueryProblems(args.value).join('; ') : 'q must be a string',
    },
  });
}

/** A decimal such as `0.5` or `1`; anything else (empty, `0x1`, `1e-1`) fails the number check. */
const decimal = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value === undefined ? value : NaN;

export class SkillSearchQuery {
  @ApiProperty({
    minLength: 1,
    maxLength: MAX_QUERY_CHARS,
    example: 'fill a pdf form',
    description: `Words to look for: 1-${MAX_QUERY_CHARS} characters and at most ${MAX_QUERY_WORDS} distinct words, counted after Unicode normalisation (NFKC) and lower-casing`,
  })
  @IsString()
  @IsSearchQuery()
  q: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(SEARCH_MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    type: 'number',
    minimum: 0,
    maximum: 1,
    default: SEARCH_DEFAULT_MIN_SCORE,
    description: 'Leave out hits scoring less',
  })
  @IsOptional()
  @Transform(decimal)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'min_score must be a number from 0 to 1' })
  @Min(0)
  @Max(1)
  min_score?: number;

  @ApiPropertyOptional({ description: 'Only this namespace' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only public (`true`) or only non-public skills' })
  @IsOptional()
  @IsIn(['true', 'false'])
  is_public?: 'true' | 'false';
}

export class SkillSearchHitDto {
  @ApiProperty({ ...ID_SCHEMA, example: 11 }) skill_id: number;
  @ApiProperty({ example: 'pdf-tools' }) name: string;
  @ApiProperty({ example: 'Fill in and read PDF forms.' }) description: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty() is_public: boolean;
  @ApiProperty({ ...VERSION_SCHEMA, description: 'The latest version, the one searched' }) version: number;
  @ApiProperty({ example: CONTENT_HASH_EXAMPLE }) content_hash: string;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'The tool policy of the version (docs/packages.md#tool-policy-fields); null when it restricts nothing',
  })
  allowed_tools: string[] | null;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    example: 0.82,
    description: 'Lexical relevance; docs/search.md#score states the formula',
  })
  score: number;
}

export class SkillSearchResultDto {
  @ApiProperty({ type: [SkillSearchHitDto] }) items: SkillSearchHitDto[];
  @ApiProperty({ description: 'The query as received' }) query: string;
}
