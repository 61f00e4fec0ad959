import { Injectable } from '@nestjs/common';
import { IdPipe } from '../common/http/id.pipe';
import { BOT_NOT_FOUND } from './bots.service';

/** A malformed bot id answers exactly like a missing bot. */
@Injectable()
export class BotIdPipe extends IdPipe {
  protected override readonly message = BOT_NOT_FOUND;
}
