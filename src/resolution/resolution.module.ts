import { Module } from '@nestjs/common';
import { SkillsModule } from '../skills/skills.module';
import { TasksModule } from '../tasks/tasks.module';
import { ExecutionRequestsService } from './execution-requests.service';
import { SkillDownloadsController } from './skill-downloads.controller';
import { SkillDownloadsService } from './skill-downloads.service';
import { SkillFilesController } from './skill-files.controller';
import { TaskResolutionService } from './task-resolution.service';
import { TaskSkillsController } from './task-skills.controller';
import { TaskToolPolicyController } from './task-tool-policy.controller';
import { TaskToolPolicyService } from './task-tool-policy.service';

@Module({
  imports: [SkillsModule, TasksModule],
  controllers: [TaskSkillsController, TaskToolPolicyController, SkillDownloadsController, SkillFilesController],
  providers: [TaskResolutionService, ExecutionRequestsService, SkillDownloadsService, TaskToolPolicyService],
  exports: [TaskResolutionService, TaskToolPolicyService, SkillDownloadsService],
})
export class ResolutionModule {}
