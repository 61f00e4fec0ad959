import { Module } from '@nestjs/common';
import { SkillsModule } from '../skills/skills.module';
import { GitFetcher } from './git-fetcher.service';
import { GitImportsService } from './git-imports.service';
import { GitPackages } from './git-packages.service';
import { gitRemoteProvider } from './git-remote.provider';
import { GitSourcesController } from './git-sources.controller';
import { ImportSlots } from './import-slots';
import { SkillSourcesRepository } from './skill-sources.repository';
import { SkillSourcesService } from './skill-sources.service';

/** Skills imported from git, their drift and their updates (docs/publishing.md#importing-from-git). */
@Module({
  imports: [SkillsModule],
  controllers: [GitSourcesController],
  providers: [
    gitRemoteProvider,
    ImportSlots,
    GitFetcher,
    GitPackages,
    GitImportsService,
    SkillSourcesService,
    SkillSourcesRepository,
  ],
})
export class GitSourcesModule {}
