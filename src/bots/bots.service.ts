import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { Page, toPage } from '../common/http/pagination';
import { ScopedAccess } from '../groups/scoped-access.service';
import { GHOST_NOT_FOUND } from '../ghosts/ghosts.service';
import { GhostsRepository } from '../ghosts/ghosts.repository';
import { toBotDto } from './bot.mapper';
import { BotsRepository } from './bots.repository';
import { BotBodyDto, BotDto, BotListQuery } from './dto/bot.dto';

export const BOT_NOT_FOUND = 'Bot not found';

@Injectable()
export class BotsService {
  constructor(
    private readonly bots: BotsRepository,
    private readonly ghosts: GhostsRepository,
    private readonly access: ScopedAccess,
  ) {}

  async create(caller: UserPrincipal, body: BotBodyDto): Promise<BotDto> {
    const namespace = await this.access.creatable(caller, body.namespace ?? undefined);
    await this.requireGhost(caller, body.ghost_id);
    // Null when the ghost was deleted between the check and the write.
    const bot = await this.bots.insertUsingGhost({
      name: body.name,
      namespace,
      ownerUserId: caller.userId,
      ghostId: body.ghost_id,
    });
    if (!bot) throw DomainError.notFound(GHOST_NOT_FOUND);
    return toBotDto(bot);
  }

  async list(caller: UserPrincipal, query: BotListQuery): Promise<Page<BotDto>> {
    const filter = await this.access.listFilter(caller, query);
    const { limit } = filter;
    const rows = await this.bots.list(filter);
    return toPage(rows, limit, toBotDto);
  }

  async get(caller: UserPrincipal, id: number): Promise<BotDto> {
    return toBotDto(await this.access.readable(caller, await this.bots.findActive(id), BOT_NOT_FOUND));
  }

  async replace(caller: UserPrincipal, id: number, body: BotBodyDto): Promise<BotDto> {
    const bot = await this.access.changeable(caller, await this.bots.findActive(id), BOT_NOT_FOUND);
    this.access.sameNamespace(bot, body.namespace ?? undefined);
    // The ghost already set was checked when it was set: a Maintainer may rename a bot whose
    // ghost they cannot read, but may only point it at a ghost they can read.
    if (body.ghost_id !== bot.ghostId) await this.requireGhost(caller, body.ghost_id);
    const saved = await this.bots.replaceUsingGhost(bot, { name: body.name, ghostId: body.ghost_id });
    if (!saved) throw DomainError.notFound(GHOST_NOT_FOUND);
    return toBotDto(saved);
  }

  /** Soft delete; 409 IN_USE while an active team lists the bot. */
  async remove(caller: UserPrincipal, id: number): Promise<void> {
    const bot = await this.access.changeable(caller, await this.bots.findActive(id), BOT_NOT_FOUND);
    const teams = await this.bots.deleteUnlessInTeams(bot);
    if (teams.length > 0) {
      throw new DomainError('IN_USE', `The bot is a member of ${teams.length} team(s)`, { teams });
    }
  }

  /** A body `ghost_id` answers exactly like `GET /ghosts/{id}` when missing or unreadable. */
  private async requireGhost(caller: UserPrincipal, ghostId: number): Promise<void> {
    await this.access.readable(caller, await this.ghosts.findActive(ghostId), GHOST_NOT_FOUND);
  }
}
