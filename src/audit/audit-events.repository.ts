import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditEventEntity } from './audit-event.entity';

export interface AuditEventFilter {
  /** The namespaces the reader may see, or every event (admins). */
  namespaces: string[] | 'all';
  actorUserId?: number;
  action?: string;
  targetType?: string;
  targetId?: number;
  namespace?: string;
  /** Events older than this id (the previous page's last). */
  beforeId?: number;
  limit: number;
}

@Injectable()
export class AuditEventsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Newest first, `limit + 1` rows (the extra one says another page exists). */
  list(filter: AuditEventFilter): Promise<AuditEventEntity[]> {
    const qb = this.db.manager
      .createQueryBuilder(AuditEventEntity, 'e')
      .orderBy('e.id', 'DESC')
      .limit(filter.limit + 1);
    if (filter.namespaces !== 'all') qb.andWhere('e.namespace = ANY(:namespaces)', { namespaces: filter.namespaces });
    if (filter.namespace !== undefined) qb.andWhere('e.namespace = :namespace', { namespace: filter.namespace });
    if (filter.actorUserId !== undefined) qb.andWhere('e.actor_user_id = :actor', { actor: filter.actorUserId });
    if (filter.action !== undefined) qb.andWhere('e.action = :action', { action: filter.action });
    if (filter.targetType !== undefined) qb.andWhere('e.target_type = :targetType', { targetType: filter.targetType });
    if (filter.targetId !== undefined) qb.andWhere('e.target_id = :targetId', { targetId: filter.targetId });
    if (filter.beforeId !== undefined) qb.andWhere('e.id < :beforeId', { beforeId: filter.beforeId });
    return qb.getMany();
  }
}
