import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { DomainError } from '../common/errors/domain-error';
import { ApiErrors } from '../common/errors/error-response.dto';
import { DatabaseProbe, StoreProbe } from './database-probe';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseProbe,
    private readonly store: StoreProbe,
  ) {}

  @Get('live')
  @ApiOperation({ operationId: 'getLiveness', summary: 'The process answers (no database involved)' })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string' } }, example: { status: 'ok' } } })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'The database and the package store answer (within 2 s, else 503)',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: { status: { type: 'string' }, database: { type: 'string' }, store: { type: 'string' } },
      example: { status: 'ok', database: 'up', store: 'up' },
    },
  })
  @ApiErrors(
    { code: 'DATABASE_UNAVAILABLE', when: 'the database did not answer within 2 s' },
    { code: 'STORAGE_UNAVAILABLE', when: 'the package store did not answer within 2 s' },
  )
  async ready(): Promise<{ status: string; database: string; store: string }> {
    const [database, store] = await Promise.all([this.database.answers(), this.store.answers()]);
    if (!database) throw new DomainError('DATABASE_UNAVAILABLE', 'The database is unreachable');
    if (!store) throw new DomainError('STORAGE_UNAVAILABLE', 'The package store is unreachable');
    return { status: 'ok', database: 'up', store: 'up' };
  }
}
