import { Module } from '@nestjs/common';
import { ResolutionModule } from '../resolution/resolution.module';
import { ResolutionFactsModule } from '../selection-facts/resolution-facts.module';
import { SkillsModule } from '../skills/skills.module';
import { DownloadRows } from './download-rows';
import { PackageReads } from './package-reads.service';
import { SkillDownloadsController } from './skill-downloads.controller';
import { SkillDownloadsService } from './skill-downloads.service';
import { SkillFilesController } from './skill-files.controller';

/**
 * Downloads, manifests, single files and the Wegent lookup, for users (as the skill routes read)
 * and for task tokens (their task's resolved set only, hence the resolution).
 */
@Module({
  imports: [ResolutionFactsModule, SkillsModule, ResolutionModule],
  controllers: [SkillDownloadsController, SkillFilesController],
  providers: [SkillDownloadsService, PackageReads, DownloadRows],
  exports: [SkillDownloadsService],
})
export class SkillDownloadsModule {}
