// Skill bindings of a user and of a group (docs/resolution.md#skill-bindings): who may list, put
// and delete them, and what a binding may name. The rules are the resolver's (resolver/bindings.ts).
import { Injectable } from '@nestjs/common';
import { canChange, canSeeGroup, GroupRole, hasRole } from '../access';
import { UserPrincipal } from '../auth/principal';
import { BindingChange, ChangeGeneration } from '../cache/change-generation';
import { DomainError } from '../common/errors/domain-error';
import { GroupsRepository } from '../groups/groups.repository';
import { exceptionProblems, groupBindable } from '../resolver';
import { SkillReaders } from '../skills/skill-readers';
import { SkillsRepository } from '../skills/skills.repository';
import { PutSkillBindingDto, SkillBindingDto, SkillBindingListDto } from './dto/skill-binding.dto';
import { toSkillBindingDto } from './skill-binding.mapper';
import { BindingOwner, SkillBindingsRepository } from './skill-bindings.repository';

const GROUP_NOT_FOUND = 'Group not found';
const BINDING_NOT_FOUND = 'Skill binding not found';

export interface PutAnswer {
  binding: SkillBindingDto;
  created: boolean;
}

@Injectable()
export class SkillBindingsService {
  constructor(
    private readonly bindings: SkillBindingsRepository,
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
    private readonly groups: GroupsRepository,
    private readonly changes: ChangeGeneration,
  ) {}

  async listMine(caller: UserPrincipal): Promise<SkillBindingListDto> {
    return this.listOf({ type: 'user', userId: caller.userId });
  }

  async putMine(caller: UserPrincipal, skillId: number, body: PutSkillBindingDto): Promise<PutAnswer> {
    const exceptions = checkedExceptions(body);
    await this.readableSkill(caller, skillId);
    return this.put({ type: 'user', userId: caller.userId }, caller, skillId, body, exceptions);
  }

  async removeMine(caller: UserPrincipal, skillId: number): Promise<void> {
    const owner: BindingOwner = { type: 'user', userId: caller.userId };
    if (!(await this.bindings.remove(owner, skillId))) throw DomainError.notFound(BINDING_NOT_FOUND);
    this.changed(owner);
  }

  /** Reporter+ (any effective role), or an admin. */
  async listOfGroup(caller: UserPrincipal, groupId: number): Promise<SkillBindingListDto> {
    const { owner } = await this.visibleGroup(caller, groupId);
    return this.listOf(owner);
  }

  /** Developer+; only a skill of the group's namespace or a public one. */
  async putForGroup(
    caller: UserPrincipal,
    groupId: number,
    skillId: number,
    body: PutSkillBindingDto,
  ): Promise<PutAnswer> {
    const { owner, role } = await this.visibleGroup(caller, groupId);
    if (!caller.isAdmin && !hasRole(role, 'Developer')) {
      throw DomainError.forbidden('Binding a skill to a group needs Developer or above in it');
    }
    const exceptions = checkedExceptions(body);
    const skill = await this.readableSkill(caller, skillId);
    if (groupBindable(owner.groupName, skill) !== 'ok') {
      throw new DomainError(
        'SKILL_SELECTION_INVALID',
        `A group binds only a skill of its own namespace (${owner.groupName}) or a public skill`,
        { invalid: [{ name: skill.name, reason: 'SCOPE_MISMATCH' }] },
      );
    }
    return this.put(owner, caller, skillId, body, exceptions);
  }

  /** Maintainer+, or the binding's creator while Developer+. */
  async removeForGroup(caller: UserPrincipal, groupId: number, skillId: number): Promise<void> {
    const { owner, role } = await this.visibleGroup(caller, groupId);
    const found = await this.bindings.find(owner, skillId);
    if (!found) throw DomainError.notFound(BINDING_NOT_FOUND);
    if (!canChange(caller, { namespace: owner.groupName, ownerUserId: found.binding.createdByUserId }, role)) {
      throw DomainError.forbidden('Removing a group binding needs Maintainer or above, or its creator while Developer');
    }
    if (!(await this.bindings.remove(owner, skillId))) throw DomainError.notFound(BINDING_NOT_FOUND);
    this.changed(owner);
  }

  private async listOf(owner: BindingOwner): Promise<SkillBindingListDto> {
    return { items: (await this.bindings.list(owner)).map(toSkillBindingDto) };
  }

  private async put(
    owner: BindingOwner,
    caller: UserPrincipal,
    skillId: number,
    body: PutSkillBindingDto,
    exceptions: Array<{ type: 'mode' | 'team'; value: string }>,
  ): Promise<PutAnswer> {
    // PUT replaces the whole binding: what is left out takes its default.
    const { row, created } = await this.bindings.put(owner, {
      skillId,
      preload: body.preload ?? false,
      exceptions,
      actorUserId: caller.userId,
    });
    this.changed(owner);
    return { binding: toSkillBindingDto(row), created };
  }

  /**
   * Committed: drop exactly the cached resolutions these bindings can change (the user's tasks, or
   * the tasks of the group's and its children's teams). Other replicas hear it from the table's
   * trigger.
   */
  private changed(owner: BindingOwner): void {
    const change: BindingChange = owner.type === 'user' ? { userId: owner.userId } : { groupName: owner.groupName };
    this.changes.bindingChanged(change);
  }

  /** The skill, when the caller may read it and it is not deleted (admins included); else 404. */
  private async readableSkill(caller: UserPrincipal, skillId: number) {
    const skill = await this.readers.readable(caller, await this.skills.findById(skillId));
    if (skill.deletedAt !== null) throw DomainError.notFound('Skill not found');
    return skill;
  }

  private async visibleGroup(
    caller: UserPrincipal,
    groupId: number,
  ): Promise<{ owner: Extract<BindingOwner, { type: 'group' }>; role: GroupRole | null }> {
    const group = await this.groups.findById(groupId);
    if (!group) throw DomainError.notFound(GROUP_NOT_FOUND);
    const role = await this.groups.effectiveRole(caller.userId, group.name);
    if (!canSeeGroup(caller, role)) throw DomainError.notFound(GROUP_NOT_FOUND);
    return { owner: { type: 'group', groupId: group.id, groupName: group.name }, role };
  }
}

/** The exceptions as given (none when left out), every problem a 400 before anything is read. */
function checkedExceptions(body: PutSkillBindingDto): Array<{ type: 'mode' | 'team'; value: string }> {
  const exceptions = (body.exceptions ?? []).map((e) => ({ type: e.type, value: e.value }));
  const problems = exceptionProblems(exceptions);
  if (problems.length) throw DomainError.validation(problems);
  return exceptions;
}
