import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One change (docs/operations.md#audit-log), appended in the transaction of the change and never
 * updated. No foreign keys: an event outlives whatever it names, and writing one takes no lock
 * on the rows it names. Each index serves one filter of GET /audit-events, newest first.
 */
@Entity('audit_events')
@Check(
  'audit_events_target_type_check',
  `"target_type" IN ('user', 'api_key', 'task_token', 'group', 'group_member', 'skill', 'skill_version', 'ghost', 'bot', 'team', 'subscription', 'task', 'execution_request', 'skill_binding', 'skill_tag', 'blob', 'skill_source')`,
)
@Check(
  'audit_events_action_check',
  `"action" IN ("target_type" || '.create', "target_type" || '.update', "target_type" || '.delete', "target_type" || '.revoke', "target_type" || '.persist', "target_type" || '.gc', "target_type" || '.purge', "target_type" || '.import', "target_type" || '.check')`,
)
@Index('audit_events_actor_user_id_idx', ['actorUserId', 'id'])
@Index('audit_events_action_idx', ['action', 'id'])
@Index('audit_events_target_idx', ['targetType', 'targetId', 'id'])
@Index('audit_events_target_id_idx', ['targetId', 'id'])
@Index('audit_events_namespace_idx', ['namespace', 'id'])
export class AuditEventEntity {
  /** bigint: an append-only log may pass 2^31 rows; read as a string by `pg`. */
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'BY DEFAULT',
    primaryKeyConstraintName: 'audit_events_pkey',
  })
  id: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  at: Date;

  /** Null for changes made by the service itself (the admin installed at boot). */
  @Column({ type: 'integer', nullable: true })
  actorUserId: number | null;

  /** `<target_type>.<verb>`. */
  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Column({ type: 'varchar', length: 32 })
  targetType: string;

  @Column({ type: 'integer' })
  targetId: number;

  /** `default`, a group name, or null for users and API keys. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  namespace: string | null;

  @Column({ type: 'jsonb', default: () => `'{}'` })
  details: object;

  /** The X-Request-Id of the request that made the change; null at boot. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  requestId: string | null;
}
