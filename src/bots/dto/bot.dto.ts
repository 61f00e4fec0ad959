import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { ID_SCHEMA, MAX_ID } from '../../common/http/id.pipe';
import { NamespacePageQuery } from '../../common/http/pagination';
import { ScopedBodyDto, ScopedResourceDto } from '../../scoped/scoped-resource.dto';

/** The whole writable body, for POST and PUT alike. */
export class BotBodyDto extends ScopedBodyDto {
  @ApiProperty({ ...ID_SCHEMA, example: 1, description: 'A ghost the caller may read (else 404)' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  ghost_id: number;
}

export class BotDto extends ScopedResourceDto {
  @ApiProperty({ ...ID_SCHEMA, example: 1 }) ghost_id: number;
}

/** A valid body for POST and PUT (the ghost id is one the caller may read). */
export const BOT_BODY_EXAMPLES = {
  bot: {
    summary: 'A personal bot on the first ghost (ghost 1 on a fresh install)',
    value: { name: 'greeter-bot', namespace: 'default', ghost_id: 1 },
  },
};

export class BotListDto {
  @ApiProperty({ type: [BotDto] }) items: BotDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class BotListQuery extends NamespacePageQuery {}
