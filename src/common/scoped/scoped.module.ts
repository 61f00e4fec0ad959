import { Global, Module } from '@nestjs/common';
import { ResolutionFactsRepository } from '../../resolution/resolution-facts.repository';
import { SelectionValidator } from '../../resolution/selection-validator.service';
import { ScopedAccess } from './scoped-access';

/** What every feature that owns scoped resources and skill selections shares. */
@Global()
@Module({
  providers: [ScopedAccess, ResolutionFactsRepository, SelectionValidator],
  exports: [ScopedAccess, ResolutionFactsRepository, SelectionValidator],
})
export class ScopedModule {}
