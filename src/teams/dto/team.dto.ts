import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsInt, Max, Min, ValidateNested } from 'class-validator';
import { ID_SCHEMA, MAX_ID } from '../../common/http/id.pipe';
import { Distinct, MaxItems } from '../../common/http/input-limits';
import { NamespacePageQuery } from '../../common/http/pagination';
import { ScopedBodyDto, ScopedResourceDto } from '../../scoped/scoped-resource.dto';

export const MAX_TEAM_MEMBERS = 20;

export class TeamMemberDto {
  @ApiProperty({ ...ID_SCHEMA, example: 1, description: 'A bot the caller may read (else 404)' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  bot_id: number;
}

/** The whole writable body, for POST and PUT alike. */
export class TeamBodyDto extends ScopedBodyDto {
  @ApiProperty({
    type: [TeamMemberDto],
    minItems: 1,
    maxItems: MAX_TEAM_MEMBERS,
    description: 'In order: among their ghosts the first bot decides; each bot once',
  })
  @IsArray()
  @ArrayMinSize(1)
  @MaxItems(MAX_TEAM_MEMBERS)
  @Distinct((m: TeamMemberDto) => m.bot_id, { message: 'members must not repeat a bot' })
  @ValidateNested({ each: true })
  @Type(() => TeamMemberDto)
  members: TeamMemberDto[];
}

export class TeamDto extends ScopedResourceDto {
  @ApiProperty({ type: [TeamMemberDto] }) members: TeamMemberDto[];
}

/** A valid body for POST and PUT (the bot id is one the caller may read). */
export const TEAM_BODY_EXAMPLES = {
  team: {
    summary: 'A personal team of the first bot (bot 1 on a fresh install)',
    value: { name: 'front-desk', namespace: 'default', members: [{ bot_id: 1 }] },
  },
};

export class TeamListDto {
  @ApiProperty({ type: [TeamDto] }) items: TeamDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class TeamListQuery extends NamespacePageQuery {}
