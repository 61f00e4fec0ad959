import { Module } from '@nestjs/common';
import { SkillsModule } from '../skills/skills.module';
import { BlobGcController } from './blob-gc.controller';
import { BlobGcService } from './blob-gc.service';

/** What operators run over the package store: the garbage sweep (docs/storage.md#garbage). */
@Module({
  imports: [SkillsModule],
  controllers: [BlobGcController],
  providers: [BlobGcService],
})
export class BlobMaintenanceModule {}
