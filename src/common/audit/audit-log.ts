// The audit trail's one writer (docs/operations.md#audit-log): every change records one event in the transaction
// that makes it, so a change that rolls back leaves no event and no event outlives its change.
// The actor and the request id come from the request context; at boot there is neither (null).
import { EntityManager } from 'typeorm';
import { requestContext } from '../logging/request-context';

export const AUDIT_TARGET_TYPES = [
  'user',
  'api_key',
  'task_token',
  'group',
  'group_member',
  'skill',
  'skill_version',
  'ghost',
  'bot',
  'team',
  'subscription',
  'task',
  'execution_request',
  'skill_binding',
  'skill_tag',
  'blob',
  'skill_source',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export const AUDIT_VERBS = [
  'create',
  'update',
  'delete',
  'revoke',
  'persist',
  'gc',
  'purge',
  'import',
  'check',
] as const;
export type AuditVerb = (typeof AUDIT_VERBS)[number];

/** JSON details of an event: ids, names, versions, flags. Never a key, a token or a hash of one. */
export type AuditDetails = { [key: string]: AuditValue };
type AuditValue = string | number | boolean | null | AuditValue[] | { [key: string]: AuditValue };

export interface AuditEventInput {
  type: AuditTargetType;
  verb: AuditVerb;
  /** The target's id (see docs/operations.md#audit-log for the targets without one of their own). */
  id: number;
  /** The namespace the target lives in; null for users and API keys, which have none. */
  namespace: string | null;
  details?: AuditDetails;
}

/** Runs `work` in `manager`'s transaction when one is open, else in a new one. */
export function inTransaction<T>(manager: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return manager.queryRunner?.isTransactionActive ? work(manager) : manager.transaction(work);
}

/**
 * Writes one event on `tx`, which must be the open transaction of the change (on the embedded
 * database a statement on another connection would wait for that transaction to end).
 */
export async function recordAudit(tx: EntityManager, event: AuditEventInput): Promise<void> {
  if (!tx.queryRunner?.isTransactionActive) {
    throw new Error(`audit event ${event.type}.${event.verb} recorded outside the transaction of its change`);
  }
  const ctx = requestContext.getStore();
  await tx.query(
    `INSERT INTO audit_events (actor_user_id, action, target_type, target_id, namespace, details, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      ctx?.userId ?? null,
      `${event.type}.${event.verb}`,
      event.type,
      event.id,
      event.namespace,
      JSON.stringify(event.details ?? {}),
      ctx?.requestId ?? null,
    ],
  );
}
