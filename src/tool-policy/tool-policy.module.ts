import { Module } from '@nestjs/common';
import { ResolutionModule } from '../resolution/resolution.module';
import { ResolutionFactsModule } from '../selection-facts/resolution-facts.module';
import { TaskToolPolicyController } from './task-tool-policy.controller';
import { TaskToolPolicyService } from './task-tool-policy.service';

/** A task's tool policy: the tool check and the remote-skills manifest, over its resolved skills. */
@Module({
  imports: [ResolutionFactsModule, ResolutionModule],
  controllers: [TaskToolPolicyController],
  providers: [TaskToolPolicyService],
  exports: [TaskToolPolicyService],
})
export class ToolPolicyModule {}
