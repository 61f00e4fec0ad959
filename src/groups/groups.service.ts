import { Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { isUniqueViolation } from '../common/errors/pg-errors';
import { UsersRepository } from '../users/users.repository';
import { GroupDto, MemberDto, MembershipDto } from './dto/group.dto';
import { toGroupDto } from './group.mapper';
import { GroupEntity } from './group.entity';
import {
  canCreateChildGroup,
  canManageMembers,
  canManageOwners,
  canSeeGroup,
  demotesOwner,
  GroupRole,
  groupNameProblems,
  parentName,
  touchesOwner,
} from '../access';
import { GroupsRepository } from './groups.repository';

const GROUP_NOT_FOUND = 'Group not found';

@Injectable()
export class GroupsService {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly users: UsersRepository,
  ) {}

  async create(caller: UserPrincipal, name: string): Promise<GroupDto> {
    const problems = groupNameProblems(name);
    if (problems.length) throw DomainError.validation(problems);
    const parent = parentName(name);
    let parentId: number | null = null;
    if (parent !== null) {
      const found = await this.readable(caller, await this.groups.findByName(parent));
      if (!canCreateChildGroup(caller, found.role)) {
        throw DomainError.forbidden(`Creating a group under ${parent} needs Maintainer or Owner there`);
      }
      parentId = found.group.id;
    }
    try {
      const group = await this.groups.createWithOwner(name, parentId, caller.userId);
      return toGroupDto(group, 'Owner');
    } catch (err) {
      if (isUniqueViolation(err, 'groups_name_key'))
        throw new DomainError('GROUP_EXISTS', `Group ${name} already exists`);
      throw err;
    }
  }

  async list(caller: UserPrincipal): Promise<{ items: GroupDto[] }> {
    const rows = await this.groups.listWithRoles(caller.userId, caller.isAdmin);
    return { items: rows.map((r) => toGroupDto(r.group, r.role)) };
  }

  async get(caller: UserPrincipal, groupId: number): Promise<GroupDto> {
    const { group, role } = await this.readable(caller, await this.groups.findById(groupId));
    return toGroupDto(group, role);
  }

  async members(caller: UserPrincipal, groupId: number): Promise<{ items: MemberDto[] }> {
    const { group } = await this.readable(caller, await this.groups.findById(groupId));
    return { items: await this.groups.members(group.id) };
  }

  async setMember(caller: UserPrincipal, groupId: number, userId: number, role: GroupRole): Promise<MembershipDto> {
    const { group, role: callerRole } = await this.readable(caller, await this.groups.findById(groupId));
    this.requireManager(caller, callerRole);
    if (!(await this.users.findById(userId))) throw DomainError.notFound('User not found');
    await this.groups.withLockedGroup(group.id, async (locked) => {
      const current = await locked.directRole(userId);
      if (touchesOwner(current, role) && !canManageOwners(caller, callerRole)) {
        throw DomainError.forbidden('Only Owners grant, change or remove the Owner role');
      }
      if (demotesOwner(current, role) && (await locked.countDirectOwners()) <= 1) {
        throw new DomainError('LAST_OWNER', 'The group must keep at least one direct Owner');
      }
      await locked.setRole(userId, role, current);
    });
    return { group_id: group.id, user_id: userId, role };
  }

  async removeMember(caller: UserPrincipal, groupId: number, userId: number): Promise<void> {
    const { group, role: callerRole } = await this.readable(caller, await this.groups.findById(groupId));
    const leaving = userId === caller.userId;
    if (!leaving) this.requireManager(caller, callerRole);
    await this.groups.withLockedGroup(group.id, async (locked) => {
      const current = await locked.directRole(userId);
      if (!current) throw DomainError.notFound('Member not found');
      if (touchesOwner(current, null) && !leaving && !canManageOwners(caller, callerRole)) {
        throw DomainError.forbidden('Only Owners grant, change or remove the Owner role');
      }
      if (demotesOwner(current, null) && (await locked.countDirectOwners()) <= 1) {
        throw new DomainError('LAST_OWNER', 'The group must keep at least one direct Owner');
      }
      await locked.remove(userId, current);
    });
  }

  /** The group and the caller's effective role; 404 when it is missing or the caller has no role. */
  private async readable(
    caller: UserPrincipal,
    group: GroupEntity | null,
  ): Promise<{ group: GroupEntity; role: GroupRole | null }> {
    if (!group) throw DomainError.notFound(GROUP_NOT_FOUND);
    const role = await this.groups.effectiveRole(caller.userId, group.name);
    if (!canSeeGroup(caller, role)) throw DomainError.notFound(GROUP_NOT_FOUND);
    return { group, role };
  }

  private requireManager(caller: UserPrincipal, role: GroupRole | null): void {
    if (!canManageMembers(caller, role)) {
      throw DomainError.forbidden('Managing members needs Maintainer or Owner');
    }
  }
}
