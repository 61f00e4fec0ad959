import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { recordAudit } from '../common/audit/audit-log';
import { PreparedStatement, queryPrepared } from '../database/prepared-query';
import { GroupMemberEntity } from './group-member.entity';
import { GroupEntity } from './group.entity';
import { GroupRole, highestRole, namespaceLineage } from '../access';

export interface GroupWithRole {
  group: GroupEntity;
  role: GroupRole | null;
}

export interface MemberRow {
  user_id: number;
  user_name: string;
  role: GroupRole;
}

/** Every list and search asks it first: prepared once per connection. */
const READABLE_GROUP_NAMES: PreparedStatement = {
  name: 'groups_readable_names',
  text: `SELECT g.name FROM groups g
          WHERE EXISTS (SELECT 1 FROM group_members m JOIN groups mg ON mg.id = m.group_id
                         WHERE m.user_id = $1 AND (g.name = mg.name OR g.name LIKE mg.name || '/%'))`,
};

/** The roles of user $1 in groups $2 (a lineage: the group and its parents). */
const ROLES_IN_LINEAGE: PreparedStatement = {
  name: 'groups_roles_in_lineage',
  text: `SELECT m.role FROM group_members m JOIN groups g ON g.id = m.group_id
          WHERE m.user_id = $1 AND g.name = ANY($2::text[])`,
};

/** The reads and writes of one group under its row lock (membership changes). */
export class LockedGroup {
  constructor(
    private readonly tx: EntityManager,
    readonly groupId: number,
    /** The group's name: the namespace of its membership events. */
    readonly groupName: string,
  ) {}

  async directRole(userId: number): Promise<GroupRole | null> {
    const row = await this.tx.findOneBy(GroupMemberEntity, { groupId: this.groupId, userId });
    return row?.role ?? null;
  }

  countDirectOwners(): Promise<number> {
    return this.tx.countBy(GroupMemberEntity, { groupId: this.groupId, role: 'Owner' });
  }

  /** `current` is the member's direct role read under this lock (null: not a member yet). */
  async setRole(userId: number, role: GroupRole, current: GroupRole | null): Promise<void> {
    if (role === current) return;
    await this.tx.query(
      `INSERT INTO group_members (group_id, user_id, role) VALUES ($1, $2, $3)
       ON CONFLICT (group_id, user_id) DO UPDATE SET role = EXCLUDED.role, updated_at = now()`,
      [this.groupId, userId, role],
    );
    await recordMember(this.tx, this.groupId, this.groupName, userId, current ? 'update' : 'create', {
      role,
      ...(current ? { previous_role: current } : {}),
    });
  }

  async remove(userId: number, current: GroupRole): Promise<void> {
    await this.tx.delete(GroupMemberEntity, { groupId: this.groupId, userId });
    await recordMember(this.tx, this.groupId, this.groupName, userId, 'delete', { previous_role: current });
  }
}

/** A membership's target is the member (its user id), in the group's namespace. */
function recordMember(
  tx: EntityManager,
  groupId: number,
  groupName: string,
  userId: number,
  verb: 'create' | 'update' | 'delete',
  details: { role?: GroupRole; previous_role?: GroupRole },
): Promise<void> {
  return recordAudit(tx, {
    type: 'group_member',
    verb,
    id: userId,
    namespace: groupName,
    details: { group_id: groupId, user_id: userId, ...details },
  });
}

@Injectable()
export class GroupsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  findById(id: number): Promise<GroupEntity | null> {
    return this.db.manager.findOneBy(GroupEntity, { id });
  }

  findByName(name: string): Promise<GroupEntity | null> {
    return this.db.manager.findOneBy(GroupEntity, { name });
  }

  /** The caller's effective role in `groupName`: the highest of their roles in it and its parents. */
  async effectiveRole(userId: number, groupName: string): Promise<GroupRole | null> {
    const rows = await queryPrepared<{ role: GroupRole }>(this.db, ROLES_IN_LINEAGE, [
      userId,
      namespaceLineage(groupName),
    ]);
    return highestRole(rows.map((r) => r.role));
  }

  /** Every group where the user has an effective role (all groups for `all`), ordered by id. */
  async listWithRoles(userId: number, all: boolean): Promise<GroupWithRole[]> {
    const groups = all
      ? await this.db.manager.find(GroupEntity, { order: { id: 'ASC' } })
      : await this.db.manager
          .createQueryBuilder(GroupEntity, 'g')
          .where(
            `EXISTS (SELECT 1 FROM group_members m JOIN groups mg ON mg.id = m.group_id
                      WHERE m.user_id = :userId AND (g.name = mg.name OR g.name LIKE mg.name || '/%'))`,
            { userId },
          )
          .orderBy('g.id', 'ASC')
          .getMany();
    const direct: Array<{ name: string; role: GroupRole }> = await this.db.query(
      `SELECT g.name, m.role FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $1`,
      [userId],
    );
    const byName = new Map(direct.map((d) => [d.name, d.role]));
    return groups.map((group) => ({
      group,
      role: highestRole(namespaceLineage(group.name).flatMap((n) => (byName.has(n) ? [byName.get(n)!] : []))),
    }));
  }

  /** Names of the groups where the user has an effective role (a member of `a` reads `a/b`). */
  async readableGroupNames(userId: number): Promise<string[]> {
    const rows = await queryPrepared<{ name: string }>(this.db, READABLE_GROUP_NAMES, [userId]);
    return rows.map((r) => r.name);
  }

  /** Names of the groups where the user is an effective Owner: direct Owner of it or of a parent. */
  async ownedGroupNames(userId: number): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.db.query(
      `SELECT g.name FROM groups g
        WHERE EXISTS (SELECT 1 FROM group_members m JOIN groups og ON og.id = m.group_id
                       WHERE m.user_id = $1 AND m.role = 'Owner' AND (g.name = og.name OR g.name LIKE og.name || '/%'))
        ORDER BY g.name`,
      [userId],
    );
    return rows.map((r) => r.name);
  }

  members(groupId: number): Promise<MemberRow[]> {
    return this.db.query(
      `SELECT m.user_id, u.user_name, m.role FROM group_members m JOIN users u ON u.id = m.user_id
        WHERE m.group_id = $1 ORDER BY m.user_id`,
      [groupId],
    );
  }

  /** Creates the group with `ownerUserId` as its first Owner. */
  createWithOwner(name: string, parentId: number | null, ownerUserId: number): Promise<GroupEntity> {
    return this.db.transaction(async (tx) => {
      const group = await tx.save(tx.create(GroupEntity, { name, parentId }));
      await recordAudit(tx, {
        type: 'group',
        verb: 'create',
        id: group.id,
        namespace: name,
        details: { name, parent_id: parentId },
      });
      await tx.insert(GroupMemberEntity, { groupId: group.id, userId: ownerUserId, role: 'Owner' });
      await recordMember(tx, group.id, name, ownerUserId, 'create', { role: 'Owner' });
      return group;
    });
  }

  /** Runs `work` in a transaction holding the group's row lock, so Owner checks cannot race. */
  withLockedGroup<T>(groupId: number, work: (group: LockedGroup) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      const [group]: Array<{ name: string }> = await tx.query('SELECT name FROM groups WHERE id = $1 FOR UPDATE', [
        groupId,
      ]);
      return work(new LockedGroup(tx, groupId, group.name));
    });
  }
}
