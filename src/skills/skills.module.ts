import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { memoryStorage } from 'multer';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PackageDelivery } from './package-delivery.service';
import { PackageInspector, UploadSlotInterceptor } from './package-inspector.service';
import { PublishedBytes } from './published-bytes.service';
import { SkillBytesRepository } from './skill-bytes.repository';
import { SkillFilesService } from './skill-files.service';
import { SkillLifecycleController } from './skill-lifecycle.controller';
import { SkillLifecycleRepository } from './skill-lifecycle.repository';
import { SkillLifecycleService } from './skill-lifecycle.service';
import { SkillReaders } from './skill-readers';
import { SkillSearchRepository } from './search/skill-search.repository';
import { SkillReferrersRepository } from './skill-referrers.repository';
import { SkillsDeleteService } from './skills-delete.service';
import { SkillsPublishService } from './skills-publish.service';
import { SkillsReadService } from './skills-read.service';
import { SkillsSearchService } from './skills-search.service';
import { SkillsController } from './skills.controller';
import { SkillsRepository } from './skills.repository';

@Module({
  imports: [
    // The upload stays in memory (at most MAX_PACKAGE_BYTES) until a worker has inspected it.
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        storage: memoryStorage(),
        limits: { fileSize: config.packageLimits.maxPackageBytes, files: 1, fields: 8, fieldSize: 1024, parts: 10 },
      }),
    }),
  ],
  controllers: [SkillsController, SkillLifecycleController],
  providers: [
    PackageInspector,
    UploadSlotInterceptor,
    SkillsRepository,
    SkillReaders,
    SkillReferrersRepository,
    SkillsPublishService,
    SkillsReadService,
    SkillsDeleteService,
    SkillSearchRepository,
    SkillsSearchService,
    SkillFilesService,
    SkillLifecycleRepository,
    SkillLifecycleService,
    SkillBytesRepository,
    PackageDelivery,
    PublishedBytes,
  ],
  exports: [
    SkillsRepository,
    SkillsPublishService,
    PackageInspector,
    SkillReaders,
    SkillsReadService,
    SkillsSearchService,
    SkillFilesService,
    SkillBytesRepository,
    PackageDelivery,
  ],
})
export class SkillsModule {}
