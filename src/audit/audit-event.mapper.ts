import type { AuditTargetType } from '../common/audit/audit-log';
import { AuditEventEntity } from './audit-event.entity';
import { AuditEventDto } from './dto/audit-event.dto';

export function toAuditEventDto(event: AuditEventEntity): AuditEventDto {
  return {
    id: Number(event.id),
    at: event.at.toISOString(),
    actor_user_id: event.actorUserId,
    action: event.action,
    target_type: event.targetType as AuditTargetType,
    target_id: event.targetId,
    namespace: event.namespace,
    details: event.details as Record<string, unknown>,
    request_id: event.requestId,
  };
}
