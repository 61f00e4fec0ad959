import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ResolutionFactsModule } from '../selection-facts/resolution-facts.module';
import { GhostEntity } from './ghost.entity';
import { GhostsController } from './ghosts.controller';
import { GhostsRepository } from './ghosts.repository';
import { GhostsService } from './ghosts.service';

@Module({
  imports: [TypeOrmModule.forFeature([GhostEntity]), ResolutionFactsModule],
  controllers: [GhostsController],
  providers: [GhostsRepository, GhostsService],
  exports: [GhostsRepository],
})
export class GhostsModule {}
