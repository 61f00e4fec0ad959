// Skill bindings' rows: listed with their skill's current name and scope, written one per
// transaction under a lock on the target (so the per-target count holds) and a share lock on the
// skill (so a binding never outlives a skill deleted meanwhile), each write audited.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { recordAudit } from '../common/audit/audit-log';
import { DomainError } from '../common/errors/domain-error';
import { BindingException, MAX_BINDINGS_PER_TARGET } from '../resolver';
import { SkillBindingEntity } from './skill-binding.entity';

/** Whom a binding is for: a user, or a group (its name is the audit event's namespace). */
export type BindingOwner = { type: 'user'; userId: number } | { type: 'group'; groupId: number; groupName: string };

/** A binding with what its answer says of the skill. */
export interface BindingRow {
  binding: SkillBindingEntity;
  skill: { name: string; namespace: string; isPublic: boolean };
}

export interface BindingWrite {
  skillId: number;
  preload: boolean;
  exceptions: BindingException[];
  actorUserId: number;
}

interface ListedRow {
  id: number;
  skill_id: number;
  user_id: number | null;
  group_id: number | null;
  preload: boolean;
  exceptions: BindingException[];
  created_by_user_id: number;
  created_at: Date;
  updated_at: Date;
  name: string;
  namespace: string;
  is_public: boolean;
}

function targetColumn(owner: BindingOwner): { column: 'user_id' | 'group_id'; id: number } {
  return owner.type === 'user' ? { column: 'user_id', id: owner.userId } : { column: 'group_id', id: owner.groupId };
}

function toRow(r: ListedRow): BindingRow {
  const binding = Object.assign(new SkillBindingEntity(), {
    id: r.id,
    skillId: r.skill_id,
    userId: r.user_id,
    groupId: r.group_id,
    preload: r.preload,
    exceptions: r.exceptions,
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  return { binding, skill: { name: r.name, namespace: r.namespace, isPublic: r.is_public } };
}

const SELECT_BOUND = `SELECT b.id, b.skill_id, b.user_id, b.group_id, b.preload, b.exceptions, b.created_by_user_id,
                             b.created_at, b.updated_at, s.name, s.namespace, s.is_public
                        FROM skill_bindings b JOIN skills s ON s.id = b.skill_id AND s.deleted_at IS NULL`;

@Injectable()
export class SkillBindingsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The target's bindings of skills not deleted, by skill name (then skill id). */
  async list(owner: BindingOwner): Promise<BindingRow[]> {
    const { column, id } = targetColumn(owner);
    const rows: ListedRow[] = await this.db.query(
      `${SELECT_BOUND} WHERE b.${column} = $1 ORDER BY s.name COLLATE "C", s.id`,
      [id],
    );
    return rows.map(toRow);
  }

  async find(owner: BindingOwner, skillId: number): Promise<BindingRow | null> {
    return this.findWith(this.db.manager, owner, skillId);
  }

  /**
   * Creates or replaces the binding (`created` says which). The skill must still be there when
   * the lock is granted (404 otherwise); a new binding past the target's limit is refused.
   */
  async put(owner: BindingOwner, write: BindingWrite): Promise<{ row: BindingRow; created: boolean }> {
    const { column, id } = targetColumn(owner);
    return this.db.transaction(async (tx) => {
      await lockTarget(tx, owner);
      const skill: unknown[] = await tx.query(`SELECT 1 FROM skills WHERE id = $1 AND deleted_at IS NULL FOR SHARE`, [
        write.skillId,
      ]);
      if (skill.length === 0) throw DomainError.notFound('Skill not found');
      const exceptions = JSON.stringify(write.exceptions);
      // A statement that starts with SELECT: pg answers an UPDATE's rows with its row count.
      const updated: Array<{ id: number }> = await tx.query(
        `WITH changed AS (UPDATE skill_bindings SET preload = $3, exceptions = $4::jsonb, updated_at = now()
                           WHERE ${column} = $1 AND skill_id = $2 RETURNING id)
         SELECT id FROM changed`,
        [id, write.skillId, write.preload, exceptions],
      );
      const created = updated.length === 0;
      if (created) {
        const [{ count }]: Array<{ count: number }> = await tx.query(
          `SELECT count(*)::int AS count FROM skill_bindings WHERE ${column} = $1`,
          [id],
        );
        if (count >= MAX_BINDINGS_PER_TARGET) {
          throw DomainError.validation([`at most ${MAX_BINDINGS_PER_TARGET} skill bindings per ${owner.type}`]);
        }
        await tx.query(
          `INSERT INTO skill_bindings (skill_id, ${column}, preload, exceptions, created_by_user_id)
           VALUES ($1, $2, $3, $4::jsonb, $5)`,
          [write.skillId, id, write.preload, exceptions, write.actorUserId],
        );
      }
      const row = (await this.findWith(tx, owner, write.skillId))!;
      await recordAudit(tx, {
        type: 'skill_binding',
        verb: created ? 'create' : 'update',
        id: row.binding.id,
        namespace: owner.type === 'group' ? owner.groupName : null,
        details: auditDetails(row),
      });
      return { row, created };
    });
  }

  /** Deletes the binding; false when there was none. */
  async remove(owner: BindingOwner, skillId: number): Promise<boolean> {
    const { column, id } = targetColumn(owner);
    return this.db.transaction(async (tx) => {
      const rows: ListedRow[] = await tx.query(
        `WITH gone AS (DELETE FROM skill_bindings WHERE ${column} = $1 AND skill_id = $2 RETURNING *)
         SELECT gone.*, s.name, s.namespace, s.is_public FROM gone JOIN skills s ON s.id = gone.skill_id`,
        [id, skillId],
      );
      if (rows.length === 0) return false;
      const row = toRow(rows[0]);
      await recordAudit(tx, {
        type: 'skill_binding',
        verb: 'delete',
        id: row.binding.id,
        namespace: owner.type === 'group' ? owner.groupName : null,
        details: auditDetails(row),
      });
      return true;
    });
  }

  private async findWith(manager: EntityManager, owner: BindingOwner, skillId: number): Promise<BindingRow | null> {
    const { column, id } = targetColumn(owner);
    const rows: ListedRow[] = await manager.query(`${SELECT_BOUND} WHERE b.${column} = $1 AND b.skill_id = $2`, [
      id,
      skillId,
    ]);
    return rows.length ? toRow(rows[0]) : null;
  }
}

/** The row of the binding's target, locked for the transaction: one write per target at a time. */
async function lockTarget(tx: EntityManager, owner: BindingOwner): Promise<void> {
  const rows: unknown[] =
    owner.type === 'user'
      ? await tx.query(`SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, [owner.userId])
      : await tx.query(`SELECT 1 FROM groups WHERE id = $1 FOR NO KEY UPDATE`, [owner.groupId]);
  if (rows.length === 0) throw DomainError.notFound(owner.type === 'user' ? 'User not found' : 'Group not found');
}

function auditDetails(
  row: BindingRow,
): Record<string, string | number | boolean | null | Array<Record<string, string>>> {
  const { binding, skill } = row;
  return {
    skill_id: binding.skillId,
    name: skill.name,
    target_type: binding.userId !== null ? 'user' : 'group',
    target_id: binding.userId ?? binding.groupId,
    preload: binding.preload,
    exceptions: binding.exceptions.map((e) => ({ type: e.type, value: e.value })),
  };
}
