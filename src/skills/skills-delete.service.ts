import { Injectable } from '@nestjs/common';
import { canRead, canReadTask, DEFAULT_NAMESPACE } from '../access';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { NamespaceAccess } from '../groups/namespace-access.service';
import { SkillFacts } from '../resolver';
import { SkillReaders } from './skill-readers';
import { Referrer, SkillReferrersRepository } from './skill-referrers.repository';
import { SkillEntity } from './skill.entity';
import { SkillsRepository } from './skills.repository';

@Injectable()
export class SkillsDeleteService {
  constructor(
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
    private readonly referrers: SkillReferrersRepository,
    private readonly access: NamespaceAccess,
  ) {}

  /**
   * Soft delete (the name is free again in its scope; versions stay downloadable by admins). While
   * ghosts, subscriptions or tasks refer to it: 409 SKILL_REFERENCED, unless `force`.
   */
  async remove(caller: UserPrincipal, id: number, force: boolean): Promise<void> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(id));
    const found = await this.referrers.find(factsOf(skill));
    const referenced = found.ghosts.length + found.subscriptions.length + found.tasks.length > 0;
    if (referenced && !force) {
      const details = await this.readableReferrers(caller, found);
      throw new DomainError(
        'SKILL_REFERENCED',
        'The skill is still selected; delete with force=true to leave those selections unresolved',
        details,
      );
    }
    // The audit event names every referrer a forced delete broke (by id), readable by the caller or not.
    const ids = (referrers: Referrer[]) => referrers.map((r) => r.id);
    await this.skills.softDelete(skill, {
      force,
      referrers: { ghosts: ids(found.ghosts), subscriptions: ids(found.subscriptions), tasks: ids(found.tasks) },
    });
  }

  /** Only the referrers the caller may read are named. */
  private async readableReferrers(
    caller: UserPrincipal,
    found: { ghosts: Referrer[]; subscriptions: Referrer[]; tasks: Referrer[] },
  ): Promise<{ ghosts: number[]; subscriptions: number[]; tasks: number[]; count: number }> {
    const groups = await this.access.readableGroups(caller);
    const role = (namespace: string) => (groups === 'all' || groups.includes(namespace) ? ('Reporter' as const) : null);
    const scoped = (r: Referrer) => canRead(caller, r, role(r.namespace));
    const ghosts = found.ghosts.filter(scoped).map((r) => r.id);
    const subscriptions = found.subscriptions.filter(scoped).map((r) => r.id);
    const tasks = found.tasks.filter((r) => canReadTask(caller, r, role(r.namespace))).map((r) => r.id);
    return { ghosts, subscriptions, tasks, count: ghosts.length + subscriptions.length + tasks.length };
  }
}

function factsOf(skill: SkillEntity): SkillFacts {
  // Only the scope matters for finding referrers: no version detail is read.
  const latest = {
    version: skill.latestVersion,
    contentHash: '',
    allowedTools: null,
    requires: { bins: [], env: [] },
    status: 'active' as const,
  };
  return {
    id: skill.id,
    name: skill.name,
    namespace: skill.namespace,
    isPublic: skill.isPublic,
    ownerUserId: skill.namespace === DEFAULT_NAMESPACE && !skill.isPublic ? skill.ownerUserId : null,
    deleted: skill.deletedAt !== null,
    latest,
    versions: { [latest.version]: latest },
    tags: {},
  };
}
