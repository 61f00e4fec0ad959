import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { DomainError } from '../common/errors/domain-error';
import { DatabaseProbe } from './database-probe';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly database: DatabaseProbe) {}

  @Get('live')
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOkResponse({ schema: { example: { status: 'ok', database: 'up' } } })
  @ApiServiceUnavailableResponse({ description: 'The database is unreachable' })
  async ready(): Promise<{ status: string; database: string }> {
    if (!(await this.database.answers())) {
      throw new DomainError('DATABASE_UNAVAILABLE', 'The database is unreachable');
    }
    return { status: 'ok', database: 'up' };
  }
}
