import { Module } from '@nestjs/common';
import { NewTasks } from './new-tasks';
import { ResolutionFactsRepository } from './resolution-facts.repository';
import { SelectionValidator } from './selection-validator.service';

/**
 * The resolver's facts and the save-time selection checks: imported by each feature that selects
 * skills or resolves them (ghosts, subscriptions, tasks, the resolution, the tool policy, downloads).
 */
@Module({
  providers: [ResolutionFactsRepository, SelectionValidator, NewTasks],
  exports: [ResolutionFactsRepository, SelectionValidator, NewTasks],
})
export class ResolutionFactsModule {}
