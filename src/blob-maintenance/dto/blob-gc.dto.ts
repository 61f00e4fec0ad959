import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

/** POST /admin/blob-gc (docs/storage.md#garbage). */
export class BlobGcRequestDto {
  @ApiPropertyOptional({
    default: false,
    example: true,
    description: '`true`: list what a sweep would delete, delete nothing (not audited)',
  })
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}

export class SweptObjectDto {
  @ApiProperty({ example: 'packages/sha256/9f/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.zip' })
  key: string;
  @ApiProperty({ type: 'integer', example: 10240 }) bytes: number;
}

export class BlobGcResultDto {
  @ApiProperty({ example: false }) dry_run: boolean;
  @ApiProperty({
    type: [SweptObjectDto],
    description: 'What was deleted (or, in a dry run, would be): unreferenced and older than BLOB_GC_GRACE_HOURS',
  })
  items: SweptObjectDto[];
  @ApiProperty({ type: 'integer', example: 10240, description: 'The bytes of `items`' })
  bytes: number;
}
