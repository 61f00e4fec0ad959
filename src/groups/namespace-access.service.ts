import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { DEFAULT_NAMESPACE, GroupRole, hasRole } from './group-role';
import { GroupsRepository } from './groups.repository';

export interface Actor {
  userId: number;
  isAdmin: boolean;
}

/** Roles in namespaces, for every feature that checks access to a group's things. */
@Injectable()
export class NamespaceAccess {
  constructor(private readonly groups: GroupsRepository) {}

  /** The effective role in a group namespace; null in `default` or without a role. */
  roleIn(userId: number, namespace: string): Promise<GroupRole | null> {
    if (namespace === DEFAULT_NAMESPACE) return Promise.resolve(null);
    return this.groups.effectiveRole(userId, namespace);
  }

  /**
   * Asserts that `actor` holds at least `needed` in the group `namespace`: a group that does not
   * exist, or where the actor has no role, answers 404; too low a role answers 403.
   */
  async requireRole(actor: Actor, namespace: string, needed: GroupRole): Promise<GroupRole | null> {
    if (actor.isAdmin) {
      if (!(await this.groups.findByName(namespace))) throw DomainError.notFound(`Group ${namespace} not found`);
      return this.groups.effectiveRole(actor.userId, namespace);
    }
    const role = await this.roleIn(actor.userId, namespace);
    if (!role) throw DomainError.notFound(`Group ${namespace} not found`);
    if (!hasRole(role, needed)) throw DomainError.forbidden(`This needs the ${needed} role in ${namespace}`);
    return role;
  }
}
