import { Module } from '@nestjs/common';
import { ResolutionFactsModule } from '../selection-facts/resolution-facts.module';
import { TasksModule } from '../tasks/tasks.module';
import { ExecutionRequestsService } from './execution-requests.service';
import { TaskResolutionService } from './task-resolution.service';
import { TaskSkillsController } from './task-skills.controller';

/** A task's resolved skills, served and cached, and the execution requests that persist selections. */
@Module({
  imports: [ResolutionFactsModule, TasksModule],
  controllers: [TaskSkillsController],
  providers: [TaskResolutionService, ExecutionRequestsService],
  exports: [TaskResolutionService],
})
export class ResolutionModule {}
