import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_ID } from '../../common/http/id.pipe';
import { PageQuery } from '../../common/http/pagination';

export const MAX_TEAM_MEMBERS = 20;

export class TeamMemberDto {
  @ApiProperty({ minimum: 1, description: 'A bot the caller may read (else 404)' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  bot_id: number;
}

/** The whole writable body, for POST and PUT alike. */
export class TeamBodyDto {
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

  @ApiProperty({
    type: [TeamMemberDto],
    minItems: 1,
    maxItems: MAX_TEAM_MEMBERS,
    description: 'In order: among their ghosts the first bot decides; each bot once',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_TEAM_MEMBERS)
  @ArrayUnique((m: TeamMemberDto | null | undefined) => m?.bot_id, { message: 'members must not repeat a bot' })
  @ValidateNested({ each: true })
  @Type(() => TeamMemberDto)
  members: TeamMemberDto[];
}

export class TeamDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty() owner_user_id: number;
  @ApiProperty({ type: [TeamMemberDto] }) members: TeamMemberDto[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class TeamListDto {
  @ApiProperty({ type: [TeamDto] }) items: TeamDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class TeamListQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only this namespace' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;
}
