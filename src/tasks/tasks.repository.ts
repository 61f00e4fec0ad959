import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { ScopedListFilter } from '../common/scoped/scoped.repository';
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
    return this.db.manager.save(this.db.manager.create(TaskEntity, task));
  }

  /** A task and the background execution linking it to its subscription, in one transaction. */
  createForExecution(task: NewTask, subscriptionId: number): Promise<{ task: TaskEntity; executionId: number }> {
    return this.db.transaction(async (tx) => {
      const saved = await tx.save(tx.create(TaskEntity, task));
      const execution = await tx.save(
        tx.create(BackgroundExecutionEntity, { taskId: saved.id, subscriptionId, createdByUserId: task.ownerUserId }),
      );
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
        groups.length ? '(t.owner_user_id = :reader OR t.namespace IN (:...groups))' : 't.owner_user_id = :reader',
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

  async saveLabels(tx: EntityManager, taskId: number, labels: Record<string, string>): Promise<void> {
    await tx.update(TaskEntity, { id: taskId }, { labels, updatedAt: () => 'now()' });
  }

  insertToken(token: {
    taskId: number;
    minterUserId: number;
    tokenHash: string;
    expiresAt: Date;
  }): Promise<TaskTokenEntity> {
    return this.db.manager.save(this.db.manager.create(TaskTokenEntity, token));
  }

  async revokeTokens(taskId: number): Promise<void> {
    await this.db.manager.update(TaskTokenEntity, { taskId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }
}
