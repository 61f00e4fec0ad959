import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ResolutionFactsModule } from '../selection-facts/resolution-facts.module';
import { TeamsModule } from '../teams/teams.module';
import { SubscriptionEntity } from './subscription.entity';
import { SubscriptionsController } from './subscriptions.controller';
import { SubscriptionsRepository } from './subscriptions.repository';
import { SubscriptionsService } from './subscriptions.service';

@Module({
  imports: [TypeOrmModule.forFeature([SubscriptionEntity]), ResolutionFactsModule, TeamsModule],
  controllers: [SubscriptionsController],
  providers: [SubscriptionsRepository, SubscriptionsService],
  exports: [SubscriptionsRepository],
})
export class SubscriptionsModule {}
