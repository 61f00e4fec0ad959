import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ScopedRepository } from '../scoped/scoped.repository';
import { SubscriptionEntity } from './subscription.entity';

@Injectable()
export class SubscriptionsRepository extends ScopedRepository<SubscriptionEntity> {
  constructor(@InjectRepository(SubscriptionEntity) repo: Repository<SubscriptionEntity>) {
    super(repo, 'subscriptions');
  }
}
