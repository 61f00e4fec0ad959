import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ApiErrors } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { MetricsAccessGuard } from './metrics-access.guard';
import { MetricsService } from '../common/metrics/metrics.service';

@ApiTags('metrics')
@ApiAuth()
@Public()
@UseGuards(MetricsAccessGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (admins, or Authorization: Bearer <METRICS_TOKEN>)',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The Prometheus text format', schema: { type: 'string' } })
  @ApiErrors({ code: 'NOT_FOUND', when: 'a user who is not an admin, or a task token' })
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    res.setHeader('Content-Type', this.metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    return this.metrics.scrape();
  }
}
