import { Global, Module } from '@nestjs/common';
import { ResolutionFactsRepository } from './resolution-facts.repository';
import { SelectionValidator } from './selection-validator.service';

/** The resolver's facts and the save-time selection checks, for every feature that selects skills. */
@Global()
@Module({
  providers: [ResolutionFactsRepository, SelectionValidator],
  exports: [ResolutionFactsRepository, SelectionValidator],
})
export class ResolutionFactsModule {}
