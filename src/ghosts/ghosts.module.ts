import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GhostEntity } from './ghost.entity';
import { GhostsController } from './ghosts.controller';
import { GhostsRepository } from './ghosts.repository';
import { GhostsService } from './ghosts.service';

@Module({
  imports: [TypeOrmModule.forFeature([GhostEntity])],
  controllers: [GhostsController],
  providers: [GhostsRepository, GhostsService],
  exports: [GhostsRepository],
})
export class GhostsModule {}
