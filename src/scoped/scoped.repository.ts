// Persistence shared by ghosts, bots, teams and subscriptions: active rows by id, lists of what a
// reader may see, and writes that turn a scope's name clash into 409 NAME_TAKEN. Every write
// records its audit event in its own transaction (or in the caller's, when one is open).
import { DeepPartial, EntityManager, FindOptionsWhere, In, IsNull, Repository } from 'typeorm';
import { readableScopeSql } from '../access';
import { AuditVerb, inTransaction, recordAudit } from '../common/audit/audit-log';
import { DomainError } from '../common/errors/domain-error';
import { violatedUnique } from '../common/errors/pg-errors';
import { ScopedResourceEntity } from './scoped-resource.entity';

export interface ScopedListFilter {
  readerUserId: number;
  /** The group namespaces the reader may read, or every one (admins). */
  readableGroups: string[] | 'all';
  namespace?: string;
  afterId?: number;
  limit: number;
}

export type ScopedTable = 'ghosts' | 'bots' | 'teams' | 'subscriptions';

const AUDIT_TARGET = { ghosts: 'ghost', bots: 'bot', teams: 'team', subscriptions: 'subscription' } as const;

export class ScopedRepository<E extends ScopedResourceEntity> {
  constructor(
    protected readonly repo: Repository<E>,
    private readonly table: ScopedTable,
  ) {}

  findActive(id: number): Promise<E | null> {
    return this.repo.findOneBy({ id, deletedAt: IsNull() } as FindOptionsWhere<E>);
  }

  findActiveByIds(ids: number[]): Promise<E[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.repo.findBy({ id: In(ids), deletedAt: IsNull() } as FindOptionsWhere<E>);
  }

  /** Readable active rows by id, `limit + 1` of them (the extra one says another page exists). */
  list(filter: ScopedListFilter): Promise<E[]> {
    const qb = this.repo
      .createQueryBuilder('r')
      .where('r.deleted_at IS NULL')
      .orderBy('r.id', 'ASC')
      .limit(filter.limit + 1);
    if (filter.readableGroups !== 'all') {
      const groups = filter.readableGroups;
      qb.andWhere(
        readableScopeSql('r', ':reader', groups.length ? ':...groups' : null, { rows: 'resources', groupList: true }),
        { reader: filter.readerUserId, groups },
      );
    }
    if (filter.namespace !== undefined) qb.andWhere('r.namespace = :namespace', { namespace: filter.namespace });
    if (filter.afterId !== undefined) qb.andWhere('r.id > :afterId', { afterId: filter.afterId });
    return qb.getMany();
  }

  async insert(values: DeepPartial<E>): Promise<E> {
    return this.nameClash(
      () =>
        inTransaction(this.repo.manager, async (tx) => {
          const saved = await tx.save(this.repo.create(values));
          await this.audit(tx, saved, 'create');
          return saved;
        }),
      values.name as string,
    );
  }

  /** Replaces the writable fields of `entity`. */
  async replace(entity: E, values: DeepPartial<E>): Promise<E> {
    return this.nameClash(
      () =>
        inTransaction(this.repo.manager, async (tx) => {
          const saved = await tx.save(this.repo.merge(entity, values));
          await this.audit(tx, saved, 'update');
          return saved;
        }),
      (values.name as string) ?? entity.name,
    );
  }

  /** Soft delete of an active row (a row already deleted is left as it is). */
  async softDelete(entity: E): Promise<void> {
    await inTransaction(this.repo.manager, async (tx) => {
      const result = await tx.update(this.repo.target, { id: entity.id, deletedAt: IsNull() }, {
        deletedAt: () => 'now()',
      } as never);
      if (result.affected) await this.audit(tx, entity, 'delete');
    });
  }

  /** The audit event of a write to `entity`, on the transaction `tx` that makes it. */
  protected audit(tx: EntityManager, entity: E, verb: AuditVerb): Promise<void> {
    return recordAudit(tx, {
      type: AUDIT_TARGET[this.table],
      verb,
      id: entity.id,
      namespace: entity.namespace,
      details: { name: entity.name },
    });
  }

  private async nameClash<T>(write: () => Promise<T>, name: string): Promise<T> {
    try {
      return await write();
    } catch (err) {
      const constraint = violatedUnique(err);
      if (constraint === `${this.table}_personal_name_key` || constraint === `${this.table}_group_name_key`) {
        throw new DomainError('NAME_TAKEN', `The name ${name} is taken in this scope`);
      }
      throw err;
    }
  }
}
