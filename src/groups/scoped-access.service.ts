// Reading, changing and creating things that live in a scope (skills, ghosts, bots, teams,
// subscriptions), the one way every feature does it: missing, deleted and unreadable are one 404;
// readable but not changeable is 403. The rules are those of src/access, over the caller's role.
import { Injectable } from '@nestjs/common';
import {
  Actor,
  canChange,
  canCreate,
  canRead,
  canReadDeleted,
  DEFAULT_NAMESPACE,
  GroupRole,
  groupNameProblems,
  Scoped,
  ScopedKind,
} from '../access';
import { DomainError } from '../common/errors/domain-error';
import { DEFAULT_LIMIT, NamespacePageQuery } from '../common/http/pagination';
import { ScopedListFilter } from '../scoped/scoped.repository';
import { NamespaceAccess } from './namespace-access.service';

/** A stored thing in a scope: soft-deleted rows keep their scope. */
export interface ScopedRow extends Scoped {
  deletedAt: Date | null;
}

@Injectable()
export class ScopedAccess {
  constructor(readonly namespaces: NamespaceAccess) {}

  /** The thing when `actor` may read it, else 404; `kind` says whether deletion leaves it to admins. */
  async readable<E extends ScopedRow>(
    actor: Actor,
    entity: E | null,
    notFound: string,
    kind: ScopedKind = 'resource',
  ): Promise<E> {
    if (!entity || (entity.deletedAt && !canReadDeleted(actor, kind))) throw DomainError.notFound(notFound);
    await this.requireRead(actor, entity, notFound);
    return entity;
  }

  /** 404 when missing, deleted or unreadable; 403 when readable but not changeable by `actor`. */
  async changeable<E extends ScopedRow>(actor: Actor, entity: E | null, notFound: string): Promise<E> {
    if (!entity || entity.deletedAt) throw DomainError.notFound(notFound);
    const role = await this.requireRead(actor, entity, notFound);
    if (!canChange(actor, entity, role)) throw DomainError.forbidden('You may read this but not change it');
    return entity;
  }

  /** A valid namespace (400), where `actor` may create (404 without a role, 403 below Developer). */
  async creatable(actor: Actor, namespace: string = DEFAULT_NAMESPACE): Promise<string> {
    if (namespace !== DEFAULT_NAMESPACE) {
      const problems = groupNameProblems(namespace);
      if (problems.length) throw DomainError.validation(problems.map((p) => `namespace: ${p}`));
    }
    await this.requireCreate(actor, namespace);
    return namespace;
  }

  /**
   * For a namespace already validated: 404 for a group that does not exist or where the actor has
   * no role, 403 for too low a role (and for public things, unless an admin).
   */
  async requireCreate(actor: Actor, namespace: string, isPublic = false): Promise<void> {
    if (namespace !== DEFAULT_NAMESPACE && !(await this.namespaces.groupExists(namespace))) {
      throw DomainError.notFound(`Group ${namespace} not found`);
    }
    const role = await this.namespaces.roleIn(actor.userId, namespace);
    switch (canCreate(actor, namespace, role, isPublic)) {
      case 'ok':
        return;
      case 'not_found':
        throw DomainError.notFound(`Group ${namespace} not found`);
      case 'forbidden':
        throw DomainError.forbidden(
          isPublic ? 'Only admins publish public skills' : `Creating in ${namespace} needs Developer or higher`,
        );
    }
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
  sameNamespace(entity: ScopedRow, namespace: string | undefined): void {
    if (namespace !== undefined && namespace !== entity.namespace) {
      throw DomainError.validation([`namespace cannot change (it is ${entity.namespace})`]);
    }
  }

  /** Throws 404 unless `actor` may read `thing`; returns the actor's role in its namespace. */
  private async requireRead(actor: Actor, thing: Scoped, notFound: string): Promise<GroupRole | null> {
    const role = await this.namespaces.roleIn(actor.userId, thing.namespace);
    if (!canRead(actor, thing, role)) throw DomainError.notFound(notFound);
    return role;
  }
}
