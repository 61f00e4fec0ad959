import { Module } from '@nestjs/common';
import { ResolutionFactsModule } from '../selection-facts/resolution-facts.module';
import { SubscriptionExecutionsController } from './subscription-executions.controller';
import { TaskTokensService } from './task-tokens.service';
import { TasksController } from './tasks.controller';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

@Module({
  imports: [ResolutionFactsModule],
  controllers: [TasksController, SubscriptionExecutionsController],
  providers: [TasksRepository, TasksService, TaskTokensService],
  exports: [TasksRepository, TasksService],
})
export class TasksModule {}
