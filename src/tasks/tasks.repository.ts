import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { readableScopeSql } from '../access';
import { AuditDetails, recordAudit } from '../common/audit/audit-log';
import { ScopedListFilter } from '../scoped/scoped.repository';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { TeamEntity } from '../teams/team.entity';
import { BackgroundExecutionEntity } from './background-execution.entity';
import { TaskTokenEntity } from './task-token.entity';
import { TaskEntity } from './task.entity';

export interface NewTask {
  teamId: number;
  ownerUserId: number;
  namespace: string;
  title: string | null;
  labels: Record<string, string>;
}

@Injectable()
export class TasksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  findById(id: number): Promise<TaskEntity | null> {
    return this.db.manager.findOneBy(TaskEntity, { id });
  }

  findActiveTeam(id: number): Promise<TeamEntity | null> {
    return this.db.manager.findOneBy(TeamEntity, { id, deletedAt: IsNull() });
  }

  findActiveSubscription(id: number): Promise<SubscriptionEntity | null> {
    return this.db.manager.findOneBy(SubscriptionEntity, { id, deletedAt: IsNull() });
  }

  /** Team namespaces outlive the team: a deleted team still names its tasks' namespace. */
  findTeamIncludingDeleted(id: number): Promise<TeamEntity | null> {
    return this.db.manager.findOneBy(TeamEntity, { id });
  }

  create(task: NewTask): Promise<TaskEntity> {
    return this.db.transaction(async (tx) => {
      const saved = await tx.save(tx.create(TaskEntity, task));
      await recordTask(tx, saved, {});
      return saved;
    });
  }

  /** A task and the background execution linking it to its subscription, in one transaction. */
  createForExecution(task: NewTask, subscriptionId: number): Promise<{ task: TaskEntity; executionId: number }> {
    return this.db.transaction(async (tx) => {
      const saved = await tx.save(tx.create(TaskEntity, task));
      const execution = await tx.save(
        tx.create(BackgroundExecutionEntity, { taskId: saved.id, subscriptionId, createdByUserId: task.ownerUserId }),
      );
      await recordTask(tx, saved, { subscription_id: subscriptionId, execution_id: execution.id });
      return { task: saved, executionId: execution.id };
    });
  }

  /** Readable tasks by id (`limit + 1`): the reader's own, and those of groups they read. */
  list(filter: ScopedListFilter): Promise<TaskEntity[]> {
    const qb = this.db.manager
      .createQueryBuilder(TaskEntity, 't')
      .orderBy('t.id', 'ASC')
      .limit(filter.limit + 1);
    if (filter.readableGroups !== 'all') {
      const groups = filter.readableGroups;
      qb.where(
        readableScopeSql('t', ':reader', groups.length ? ':...groups' : null, { rows: 'tasks', groupList: true }),
        {
          reader: filter.readerUserId,
          groups,
        },
      );
    }
    if (filter.namespace !== undefined) qb.andWhere('t.namespace = :namespace', { namespace: filter.namespace });
    if (filter.afterId !== undefined) qb.andWhere('t.id > :afterId', { afterId: filter.afterId });
    return qb.getMany();
  }

  /**
   * Runs `work` in a transaction holding the task's row lock; `work` must use the manager it is
   * given for every query (on the embedded database another connection would wait for this one).
   */
  withLockedTask<T>(taskId: number, work: (task: TaskEntity, tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      const task = await tx.findOne(TaskEntity, { where: { id: taskId }, lock: { mode: 'pessimistic_write' } });
      if (!task) throw new Error(`task ${taskId} vanished`);
      return work(task, tx);
    });
  }

  /** An ExecutionRequest's selections persisted into the labels of the locked task (docs/resolution.md#executionrequest). */
  async persistExecutionRequest(
    tx: EntityManager,
    task: TaskEntity,
    labels: Record<string, string>,
    selections: Array<{ name: string; namespace: string; is_public: boolean }>,
  ): Promise<void> {
    await tx.update(TaskEntity, { id: task.id }, { labels, updatedAt: () => 'now()' });
    await recordAudit(tx, {
      type: 'execution_request',
      verb: 'persist',
      id: task.id,
      namespace: task.namespace,
      details: {
        task_id: task.id,
        requested_skill_refs: selections.map((s) => ({ name: s.name, namespace: s.namespace, is_public: s.is_public })),
      },
    });
  }

  /** A token row (its hash only); the audit event names the task, the token id and the expiry. */
  insertToken(
    task: TaskEntity,
    token: { minterUserId: number; tokenHash: string; expiresAt: Date },
  ): Promise<TaskTokenEntity> {
    return this.db.transaction(async (tx) => {
      const saved = await tx.save(tx.create(TaskTokenEntity, { taskId: task.id, ...token }));
      await recordAudit(tx, {
        type: 'task_token',
        verb: 'create',
        id: task.id,
        namespace: task.namespace,
        details: { task_id: task.id, token_id: saved.id, expires_at: token.expiresAt.toISOString() },
      });
      return saved;
    });
  }

  /** Revokes every active token of the task; one audit event lists them (none: no event). */
  async revokeTokens(task: TaskEntity): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [rows]: [Array<{ id: number }>, number] = await tx.query(
        `UPDATE task_tokens SET revoked_at = now() WHERE task_id = $1 AND revoked_at IS NULL RETURNING id`,
        [task.id],
      );
      if (rows.length === 0) return;
      await recordAudit(tx, {
        type: 'task_token',
        verb: 'revoke',
        id: task.id,
        namespace: task.namespace,
        details: { task_id: task.id, token_ids: rows.map((r) => r.id).sort((a, b) => a - b) },
      });
    });
  }
}

function recordTask(tx: EntityManager, task: TaskEntity, details: AuditDetails): Promise<void> {
  return recordAudit(tx, {
    type: 'task',
    verb: 'create',
    id: task.id,
    namespace: task.namespace,
    details: { team_id: task.teamId, title: task.title, ...details },
  });
}
