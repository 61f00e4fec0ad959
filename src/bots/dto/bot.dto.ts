import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { MAX_ID } from '../../common/http/id.pipe';
import { NamespacePageQuery } from '../../common/http/pagination';
import { ScopedBodyDto, ScopedResourceDto } from '../../common/scoped/scoped-resource.dto';

/** The whole writable body, for POST and PUT alike. */
export class BotBodyDto extends ScopedBodyDto {
  @ApiProperty({ minimum: 1, description: 'A ghost the caller may read (else 404)' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  ghost_id: number;
}

export class BotDto extends ScopedResourceDto {
  @ApiProperty() ghost_id: number;
}

export class BotListDto {
  @ApiProperty({ type: [BotDto] }) items: BotDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class BotListQuery extends NamespacePageQuery {}
