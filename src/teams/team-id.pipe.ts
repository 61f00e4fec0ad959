import { Injectable } from '@nestjs/common';
import { IdPipe } from '../common/http/id.pipe';
import { TEAM_NOT_FOUND } from './teams.service';

/** A malformed team id answers exactly like a missing team. */
@Injectable()
export class TeamIdPipe extends IdPipe {
  protected override readonly message = TEAM_NOT_FOUND;
}
