// The writes of the version lifecycle (docs/resolution.md#version-lifecycle): a version's status and
// the skill's tags, each in one transaction under the skill's row lock (so a tag never lands on a
// version being yanked or revoked at the same moment), with its audit events. The rules themselves
// are resolver/lifecycle.ts; this file loads what they decide over and writes what they allow.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { recordAudit } from '../common/audit/audit-log';
import { DomainError } from '../common/errors/domain-error';
import { changeStatus, tagTargetRefusal, VersionStatus } from '../resolver';
import { SkillTagEntity } from './skill-tag.entity';
import { SkillVersionEntity } from './skill-version.entity';
import { SkillEntity } from './skill.entity';

export const VERSION_NOT_FOUND = 'Version not found';

export interface TagRow {
  tag: string;
  version: number;
  content_hash: string;
}

@Injectable()
export class SkillLifecycleRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** PATCH of a version's status; revoking deletes the version's tags, each audited. */
  setStatus(
    skill: SkillEntity,
    version: number,
    to: VersionStatus,
    message: string | null,
  ): Promise<SkillVersionEntity> {
    return this.db.transaction(async (tx) => {
      await this.lockSkill(tx, skill.id);
      const current = await this.versionOrFail(tx, skill.id, version);
      const tags = await tx.findBy(SkillTagEntity, { skillId: skill.id, version });
      const change = changeStatus(
        current.status,
        to,
        tags.map((t) => t.tag),
      );
      if (!change.ok && change.code === 'VERSION_REVOKED') {
        throw new DomainError('VERSION_REVOKED', `Version ${version} is revoked: its status cannot change`);
      }
      if (!change.ok) {
        throw new DomainError('VERSION_TAGGED', `Version ${version} is tagged: move its tags before yanking it`, {
          tags: change.tags,
        });
      }
      if (!change.changed && message === current.statusMessage) return current;
      for (const tag of change.dropsTags) {
        await tx.delete(SkillTagEntity, { skillId: skill.id, tag });
        await recordAudit(tx, {
          type: 'skill_tag',
          verb: 'delete',
          id: skill.id,
          namespace: skill.namespace,
          details: { name: skill.name, tag, version: null, previous_version: version },
        });
      }
      await tx.update(
        SkillVersionEntity,
        { skillId: skill.id, version },
        { status: to, statusMessage: message, statusChangedAt: () => 'now()' },
      );
      await recordAudit(tx, {
        type: 'skill_version',
        verb: 'update',
        id: skill.id,
        namespace: skill.namespace,
        details: { name: skill.name, version, old_status: current.status, new_status: to, message },
      });
      return this.versionOrFail(tx, skill.id, version);
    });
  }

  /** Points `tag` at `version` (an active or deprecated one), creating or moving it. */
  putTag(skill: SkillEntity, tag: string, version: number): Promise<TagRow> {
    return this.db.transaction(async (tx) => {
      await this.lockSkill(tx, skill.id);
      const target = await this.versionOrFail(tx, skill.id, version);
      if (tagTargetRefusal(target.status)) {
        throw new DomainError('VERSION_YANKED', `A tag cannot point at version ${version}: it is ${target.status}`);
      }
      const previous = await tx.findOneBy(SkillTagEntity, { skillId: skill.id, tag });
      if (previous?.version !== version) {
        await tx.upsert(SkillTagEntity, { skillId: skill.id, tag, version, updatedAt: () => 'now()' }, [
          'skillId',
          'tag',
        ]);
        await recordAudit(tx, {
          type: 'skill_tag',
          verb: 'update',
          id: skill.id,
          namespace: skill.namespace,
          details: { name: skill.name, tag, version, previous_version: previous?.version ?? null },
        });
      }
      return { tag, version, content_hash: target.contentHash };
    });
  }

  /** Deletes `tag`; 404 when the skill has no such tag. */
  deleteTag(skill: SkillEntity, tag: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      await this.lockSkill(tx, skill.id);
      const previous = await tx.findOneBy(SkillTagEntity, { skillId: skill.id, tag });
      if (!previous) throw DomainError.notFound('Tag not found');
      await tx.delete(SkillTagEntity, { skillId: skill.id, tag });
      await recordAudit(tx, {
        type: 'skill_tag',
        verb: 'delete',
        id: skill.id,
        namespace: skill.namespace,
        details: { name: skill.name, tag, version: null, previous_version: previous.version },
      });
    });
  }

  /** The skill's tags by name, with the content hash of the version each points at. */
  async listTags(skillId: number): Promise<TagRow[]> {
    return this.db.query(
      `SELECT t.tag, t.version, v.content_hash
         FROM skill_tags t JOIN skill_versions v ON v.skill_id = t.skill_id AND v.version = t.version
        WHERE t.skill_id = $1
        ORDER BY t.tag COLLATE "C"`,
      [skillId],
    );
  }

  private async lockSkill(tx: EntityManager, skillId: number): Promise<void> {
    await tx.findOne(SkillEntity, { where: { id: skillId }, lock: { mode: 'pessimistic_write' } });
  }

  private async versionOrFail(tx: EntityManager, skillId: number, version: number): Promise<SkillVersionEntity> {
    const found = await tx.findOneBy(SkillVersionEntity, { skillId, version });
    if (!found) throw DomainError.notFound(VERSION_NOT_FOUND);
    return found;
  }
}
