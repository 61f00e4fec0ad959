import { Module } from '@nestjs/common';
import { WellKnownArchives } from './well-known-archives.service';
import { WellKnownController } from './well-known.controller';
import { WellKnownIndexService } from './well-known-index.service';
import { WellKnownRepository } from './well-known.repository';

/** The well-known index of public skills and their archives (docs/well-known.md). */
@Module({
  controllers: [WellKnownController],
  providers: [WellKnownRepository, WellKnownArchives, WellKnownIndexService],
})
export class WellKnownModule {}
