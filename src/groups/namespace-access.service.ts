import { Injectable } from '@nestjs/common';
import { ChangeGeneration, GenerationCache } from '../common/cache/change-generation';
import { DomainError } from '../common/errors/domain-error';
import { Actor, canChange, canCreate, canRead, DEFAULT_NAMESPACE, GroupRole, Scoped } from '../access';
import { GroupsRepository } from './groups.repository';

const READABLE_GROUPS_ENTRIES = 10_000;

/** Roles in namespaces, for every feature that checks access to a group's things. */
@Injectable()
export class NamespaceAccess {
  /**
   * Each user's readable groups, asked before every list and search, until the next change (a
   * membership, a group: every such write moves the generation, here or on another replica).
   */
  private readonly readable: GenerationCache<string[]>;

  constructor(
    private readonly groups: GroupsRepository,
    private readonly changes: ChangeGeneration,
  ) {
    this.readable = new GenerationCache(changes, READABLE_GROUPS_ENTRIES);
  }

  /** The effective role in a group namespace; null in `default` or without a role. */
  roleIn(userId: number, namespace: string): Promise<GroupRole | null> {
    if (namespace === DEFAULT_NAMESPACE) return Promise.resolve(null);
    return this.groups.effectiveRole(userId, namespace);
  }

  /** The group namespaces whose things `actor` may read; `all` for admins. */
  async readableGroups(actor: Actor): Promise<string[] | 'all'> {
    if (actor.isAdmin) return 'all';
    const key = String(actor.userId);
    const cached = this.readable.get(key);
    if (cached) return cached;
    const generation = this.changes.current();
    const names = Object.freeze(await this.groups.readableGroupNames(actor.userId)) as string[];
    this.readable.set(key, names, generation);
    return names;
  }

  /** Throws 404 unless `actor` may read `thing`; returns the actor's role in its namespace. */
  async requireRead(actor: Actor, thing: Scoped, notFound = 'Not found'): Promise<GroupRole | null> {
    const role = await this.roleIn(actor.userId, thing.namespace);
    if (!canRead(actor, thing, role)) throw DomainError.notFound(notFound);
    return role;
  }

  /** 404 when `actor` may not read `thing`, 403 when they may read but not change it. */
  async requireChange(actor: Actor, thing: Scoped, notFound = 'Not found'): Promise<void> {
    const role = await this.requireRead(actor, thing, notFound);
    if (!canChange(actor, thing, role)) throw DomainError.forbidden('You may read this but not change it');
  }

  /** 404 for a group that does not exist or where the actor has no role, 403 for too low a role. */
  async requireCreate(actor: Actor, namespace: string, isPublic = false): Promise<void> {
    if (namespace !== DEFAULT_NAMESPACE && !(await this.groups.findByName(namespace))) {
      throw DomainError.notFound(`Group ${namespace} not found`);
    }
    const role = await this.roleIn(actor.userId, namespace);
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
}
