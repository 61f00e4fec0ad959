import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { MAX_ID } from '../../common/http/id.pipe';
import { PageQuery } from '../../common/http/pagination';

/** The whole writable body, for POST and PUT alike. */
export class BotBodyDto {
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

  @ApiProperty({ minimum: 1, description: 'A ghost the caller may read (else 404)' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  ghost_id: number;
}

export class BotDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty() owner_user_id: number;
  @ApiProperty() ghost_id: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class BotListDto {
  @ApiProperty({ type: [BotDto] }) items: BotDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class BotListQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only this namespace' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;
}
