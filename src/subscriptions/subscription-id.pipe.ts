import { Injectable } from '@nestjs/common';
import { IdPipe } from '../common/http/id.pipe';
import { SUBSCRIPTION_NOT_FOUND } from './subscriptions.service';

/** A malformed subscription id answers exactly like a missing subscription. */
@Injectable()
export class SubscriptionIdPipe extends IdPipe {
  protected override readonly message = SUBSCRIPTION_NOT_FOUND;
}
