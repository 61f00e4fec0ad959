import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ApiErrors, JSON_BODY_ERRORS, STORE_UNAVAILABLE } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { BlobGcService } from './blob-gc.service';
import { BlobGcRequestDto, BlobGcResultDto } from './dto/blob-gc.dto';

@ApiTags('storage')
@ApiAuth()
@Controller('admin/blob-gc')
export class BlobGcController {
  constructor(private readonly gc: BlobGcService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'sweepPackageStore',
    summary: 'Delete the stored packages no version refers to, older than the grace period (admins)',
    description:
      'The sweep the service also runs every BLOB_GC_INTERVAL_MINUTES, one replica at a time; at most 10,000 objects per sweep. Audited `blob.gc` unless a dry run (docs/storage.md#garbage).',
  })
  @ApiBody({
    type: BlobGcRequestDto,
    examples: { dry: { summary: 'What would go, deleting nothing', value: { dry_run: true } } },
  })
  @ApiOkResponse({ type: BlobGcResultDto })
  @ApiErrors(
    ...JSON_BODY_ERRORS,
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'the caller is not an admin' },
    { code: 'IN_USE', when: 'a sweep is running, here or on another replica', example: 'SWEEP_RUNNING' },
    ...STORE_UNAVAILABLE,
  )
  sweep(@CurrentUser() caller: UserPrincipal, @Body() body: BlobGcRequestDto): Promise<BlobGcResultDto> {
    if (!caller.isAdmin) throw DomainError.forbidden('Only admins sweep the package store');
    return this.gc.sweep(body.dry_run ?? false);
  }
}
