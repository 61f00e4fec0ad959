import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Public } from '../auth/auth.decorators';
import { DomainError } from '../common/errors/domain-error';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @Get('live')
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOkResponse({ schema: { example: { status: 'ok', database: 'up' } } })
  @ApiServiceUnavailableResponse({ description: 'The database is unreachable' })
  async ready(): Promise<{ status: string; database: string }> {
    try {
      await this.db.query('SELECT 1');
    } catch {
      throw new DomainError('DATABASE_UNAVAILABLE', 'The database is unreachable');
    }
    return { status: 'ok', database: 'up' };
  }
}
