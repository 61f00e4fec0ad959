import { Global, Module } from '@nestjs/common';
import { MetricsAccessGuard } from './metrics-access.guard';
import { MetricsController } from './metrics.controller';
import { MetricsService } from '../common/metrics/metrics.service';

/** One registry per app; features count through MetricsService (auth failures, rejected packages, 429s). */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MetricsAccessGuard],
  exports: [MetricsService],
})
export class MetricsModule {}
