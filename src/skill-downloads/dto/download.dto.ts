import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { WegentDownloadQuery } from '../../resolution/dto/resolution.dto';

/** `?redirect=false`: the bytes through the service even when the store could serve them. */
export class DownloadQuery extends WegentDownloadQuery {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: '`false`: stream the bytes through the service instead of a 302 to the package store',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  redirect?: string;
}
