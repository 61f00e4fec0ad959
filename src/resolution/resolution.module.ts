import { Module } from '@nestjs/common';
import { SkillsModule } from '../skills/skills.module';
import { TasksModule } from '../tasks/tasks.module';
import { ExecutionRequestsService } from './execution-requests.service';
import { SkillDownloadsController } from './skill-downloads.controller';
import { SkillDownloadsService } from './skill-downloads.service';
import { SkillFilesController } from './skill-files.controller';
import { TaskResolutionService } from './task-resolution.service';
import { TaskSkillsController } from './task-skills.controller';

@Module({
  imports: [SkillsModule, TasksModule],
  controllers: [TaskSkillsController, SkillDownloadsController, SkillFilesController],
  providers: [TaskResolutionService, ExecutionRequestsService, SkillDownloadsService],
})
export class ResolutionModule {}
