import { Injectable } from '@nestjs/common';
import { ChangeGeneration, GenerationCache } from '../cache/change-generation';
import { Actor, DEFAULT_NAMESPACE, GroupRole } from '../access';
import { GroupsRepository } from './groups.repository';

const READABLE_GROUPS_ENTRIES = 10_000;

/** Roles in namespaces from the database, for every feature that checks access to a group's things. */
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

  /** True when a group of that name exists. */
  async groupExists(name: string): Promise<boolean> {
    return (await this.groups.findByName(name)) !== null;
  }
}
