import { Module } from '@nestjs/common';
import { DatabaseProbe, StoreProbe } from './database-probe';
import { HealthController } from './health.controller';

@Module({ controllers: [HealthController], providers: [DatabaseProbe, StoreProbe] })
export class HealthModule {}
