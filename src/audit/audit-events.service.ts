import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { DEFAULT_LIMIT } from '../common/http/pagination';
import { GroupsRepository } from '../groups/groups.repository';
import { toAuditEventDto } from './audit-event.mapper';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditEventListDto, AuditEventQuery } from './dto/audit-event.dto';

@Injectable()
export class AuditEventsService {
  constructor(
    private readonly events: AuditEventsRepository,
    private readonly groups: GroupsRepository,
  ) {}

  /**
   * Admins read every event; an Owner of a group reads the events of its namespace and its
   * children's (a `namespace` outside those is 403); anyone else 403.
   */
  async list(caller: UserPrincipal, query: AuditEventQuery): Promise<AuditEventListDto> {
    const namespaces = caller.isAdmin ? 'all' : await this.groups.ownedGroupNames(caller.userId);
    if (namespaces !== 'all') {
      if (namespaces.length === 0) throw DomainError.forbidden('The audit log is for admins and group Owners');
      if (query.namespace !== undefined && !namespaces.includes(query.namespace)) {
        throw DomainError.forbidden(`The audit log of ${query.namespace} is for its Owners`);
      }
    }
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await this.events.list({
      namespaces,
      actorUserId: query.actor_user_id,
      action: query.action,
      targetType: query.target_type,
      targetId: query.target_id,
      namespace: query.namespace,
      beforeId: query.cursor,
      limit,
    });
    const items = rows.slice(0, limit).map(toAuditEventDto);
    const more = rows.length > limit;
    return { items, next_cursor: more ? String(items[items.length - 1].id) : null };
  }
}
