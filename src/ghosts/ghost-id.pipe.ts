import { Injectable } from '@nestjs/common';
import { IdPipe } from '../common/http/id.pipe';
import { GHOST_NOT_FOUND } from './ghosts.service';

/** A malformed ghost id answers exactly like a missing ghost. */
@Injectable()
export class GhostIdPipe extends IdPipe {
  protected override readonly message = GHOST_NOT_FOUND;
}
