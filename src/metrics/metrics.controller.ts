import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { MetricsAccessGuard } from './metrics-access.guard';
import { MetricsService } from './metrics.service';

@ApiTags('metrics')
@ApiAuth()
@Public()
@UseGuards(MetricsAccessGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @ApiOperation({ summary: 'Prometheus metrics (admins, or Authorization: Bearer <METRICS_TOKEN>)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The Prometheus text format', schema: { type: 'string' } })
  @ApiUnauthorizedResponse({ description: 'No, or wrong, credentials' })
  @ApiNotFoundResponse({ description: 'A user who is not an admin, or a task token' })
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    res.setHeader('Content-Type', this.metrics.contentType);
    res.setHeader('Cache-Control', 'no-store');
    return this.metrics.scrape();
  }
}
