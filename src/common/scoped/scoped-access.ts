// Reading and changing scoped resources (CONTRACT §2 table): missing, deleted and unreadable are
// one 404; readable but not changeable is 403.
import { Injectable } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { NamespaceAccess } from '../../groups/namespace-access.service';
import { Actor, DEFAULT_NAMESPACE, groupNameProblems } from '../../access';
import { DEFAULT_LIMIT, NamespacePageQuery } from '../http/pagination';
import { ScopedResourceEntity } from './scoped-resource.entity';
import { ScopedListFilter } from './scoped.repository';

@Injectable()
export class ScopedAccess {
  constructor(readonly namespaces: NamespaceAccess) {}

  async readable<E extends ScopedResourceEntity>(actor: Actor, entity: E | null, notFound: string): Promise<E> {
    if (!entity || entity.deletedAt) throw DomainError.notFound(notFound);
    await this.namespaces.requireRead(actor, entity, notFound);
    return entity;
  }

  async changeable<E extends ScopedResourceEntity>(actor: Actor, entity: E | null, notFound: string): Promise<E> {
    if (!entity || entity.deletedAt) throw DomainError.notFound(notFound);
    await this.namespaces.requireChange(actor, entity, notFound);
    return entity;
  }

  /** A valid namespace (400), where `actor` may create (404 without a role, 403 below Developer). */
  async creatable(actor: Actor, namespace: string = DEFAULT_NAMESPACE): Promise<string> {
    if (namespace !== DEFAULT_NAMESPACE) {
      const problems = groupNameProblems(namespace);
      if (problems.length) throw DomainError.validation(problems.map((p) => `namespace: ${p}`));
    }
    await this.namespaces.requireCreate(actor, namespace);
    return namespace;
  }

  /** What `actor` may list, narrowed by the page query (readable rows by id, `limit + 1` of them). */
  async listFilter(actor: Actor, query: NamespacePageQuery): Promise<ScopedListFilter> {
    return {
      readerUserId: actor.userId,
      readableGroups: await this.namespaces.readableGroups(actor),
      namespace: query.namespace,
      afterId: query.cursor,
      limit: query.limit ?? DEFAULT_LIMIT,
    };
  }

  /** PUT replaces the writable body but never moves a resource: a different namespace is 400. */
  sameNamespace(entity: ScopedResourceEntity, namespace: string | undefined): void {
    if (namespace !== undefined && namespace !== entity.namespace) {
      throw DomainError.validation([`namespace cannot change (it is ${entity.namespace})`]);
    }
  }
}
