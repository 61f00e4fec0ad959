import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GhostsModule } from '../ghosts/ghosts.module';
import { BotEntity } from './bot.entity';
import { BotsController } from './bots.controller';
import { BotsRepository } from './bots.repository';
import { BotsService } from './bots.service';

@Module({
  imports: [TypeOrmModule.forFeature([BotEntity]), GhostsModule],
  controllers: [BotsController],
  providers: [BotsRepository, BotsService],
  exports: [BotsRepository],
})
export class BotsModule {}
