import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../auth/principal';
import { Page, toPage } from '../common/http/pagination';
import { ScopedAccess } from '../groups/scoped-access.service';
import { SelectionValidator } from '../selection-facts/selection-validator.service';
import { TEAM_NOT_FOUND } from '../teams/teams.service';
import { TeamsRepository } from '../teams/teams.repository';
import { SubscriptionBodyDto, SubscriptionDto, SubscriptionListQuery } from './dto/subscription.dto';
import { toExplicitSelection, toSubscriptionDto } from './subscription.mapper';
import { SubscriptionsRepository } from './subscriptions.repository';

export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';

@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly teams: TeamsRepository,
    private readonly access: ScopedAccess,
    private readonly selections: SelectionValidator,
  ) {}

  async create(caller: UserPrincipal, body: SubscriptionBodyDto): Promise<SubscriptionDto> {
    const namespace = await this.access.creatable(caller, body.namespace ?? undefined);
    await this.requireTeam(caller, body.team_id);
    const skillRefs = (body.skill_refs ?? []).map(toExplicitSelection);
    await this.selections.requireSelections(skillRefs, caller.userId, caller.userId);
    const subscription = await this.subscriptions.insert({
      name: body.name,
      namespace,
      ownerUserId: caller.userId,
      teamId: body.team_id,
      skillRefs,
    });
    return toSubscriptionDto(subscription);
  }

  async list(caller: UserPrincipal, query: SubscriptionListQuery): Promise<Page<SubscriptionDto>> {
    const filter = await this.access.listFilter(caller, query);
    const { limit } = filter;
    const rows = await this.subscriptions.list(filter);
    return toPage(rows, limit, toSubscriptionDto);
  }

  async get(caller: UserPrincipal, id: number): Promise<SubscriptionDto> {
    const subscription = await this.subscriptions.findActive(id);
    return toSubscriptionDto(await this.access.readable(caller, subscription, SUBSCRIPTION_NOT_FOUND));
  }

  /** Replaces the writable body; selections resolve as the owner and must be readable by the caller. */
  async replace(caller: UserPrincipal, id: number, body: SubscriptionBodyDto): Promise<SubscriptionDto> {
    const subscription = await this.access.changeable(
      caller,
      await this.subscriptions.findActive(id),
      SUBSCRIPTION_NOT_FOUND,
    );
    this.access.sameNamespace(subscription, body.namespace ?? undefined);
    // The team already set was checked when it was set; a new one must be readable by the caller.
    await this.requireTeam(caller, body.team_id, subscription.teamId);
    const skillRefs = (body.skill_refs ?? []).map(toExplicitSelection);
    await this.selections.requireSelections(skillRefs, subscription.ownerUserId, caller.userId);
    const saved = await this.subscriptions.replace(subscription, { name: body.name, teamId: body.team_id, skillRefs });
    return toSubscriptionDto(saved);
  }

  /** Soft delete, always allowed: executions keep pointing at it. */
  async remove(caller: UserPrincipal, id: number): Promise<void> {
    const subscription = await this.access.changeable(
      caller,
      await this.subscriptions.findActive(id),
      SUBSCRIPTION_NOT_FOUND,
    );
    await this.subscriptions.softDelete(subscription);
  }

  /** An active team; readable by the caller unless it is the one already set (answers like `GET /teams/{id}`). */
  private async requireTeam(caller: UserPrincipal, teamId: number, keptTeamId?: number): Promise<void> {
    const team = await this.teams.findActive(teamId);
    if (team && team.id === keptTeamId) return;
    await this.access.readable(caller, team, TEAM_NOT_FOUND);
  }
}
