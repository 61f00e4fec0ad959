// The skill_sources rows (docs/publishing.md#importing-from-git): a skill's git folder, written in the
// publish's transaction, and what each drift check found, each change with its audit event.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { recordAudit } from '../common/audit/audit-log';
import type { SkillEntity } from '../skills/skill.entity';
import type { VersionSource } from '../skills/skill-version.entity';
import { SkillSourceEntity } from './skill-source.entity';

/** Where a skill was published from, and the folder's tree id there. */
export interface PublishedSource {
  source: VersionSource;
  /** Null when not read (the check reads it then). */
  treeId: string | null;
}

@Injectable()
export class SkillSourcesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  find(skillId: number): Promise<SkillSourceEntity | null> {
    return this.db.manager.findOneBy(SkillSourceEntity, { skillId });
  }

  /**
   * In `tx`, the publish's: the skill's source becomes `published` (the ref was resolved just now,
   * so the check fields say so too), with one audit event: `skill.import` or `skill_source.update`.
   */
  async record(
    tx: EntityManager,
    skill: SkillEntity,
    published: PublishedSource,
    event: { verb: 'import' | 'update'; status: string },
  ): Promise<void> {
    const s = published.source;
    await tx.query(
      `INSERT INTO skill_sources (skill_id, url, ref, path, commit, tree_id, latest_commit, behind, checked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $5, false, now())
       ON CONFLICT (skill_id) DO UPDATE
         SET url = EXCLUDED.url, ref = EXCLUDED.ref, path = EXCLUDED.path, commit = EXCLUDED.commit,
             tree_id = EXCLUDED.tree_id, latest_commit = EXCLUDED.latest_commit, behind = false,
             checked_at = now(), updated_at = now()`,
      [skill.id, s.url, s.ref, s.path, s.commit, published.treeId],
    );
    await recordAudit(tx, {
      type: event.verb === 'import' ? 'skill' : 'skill_source',
      verb: event.verb,
      id: skill.id,
      namespace: skill.namespace,
      details: {
        name: skill.name,
        url: s.url,
        ref: s.ref,
        path: s.path,
        commit: s.commit,
        status: event.status,
        version: skill.latestVersion,
      },
    });
  }

  /**
   * What a check found, with its event: `skill_source.check`, or `skill_source.update` for an update
   * that found nothing new. The row as it is then.
   */
  recordCheck(
    skill: SkillEntity,
    check: { latestCommit: string; behind: boolean; publishedTreeId: string },
    verb: 'check' | 'update' = 'check',
  ): Promise<SkillSourceEntity> {
    const { latestCommit, behind, publishedTreeId } = check;
    return this.db.transaction(async (tx) => {
      await tx.update(
        SkillSourceEntity,
        { skillId: skill.id },
        { latestCommit, behind, treeId: publishedTreeId, checkedAt: () => 'now()', updatedAt: () => 'now()' },
      );
      await recordAudit(tx, {
        type: 'skill_source',
        verb,
        id: skill.id,
        namespace: skill.namespace,
        details: {
          name: skill.name,
          latest_commit: latestCommit,
          behind,
          ...(verb === 'update' ? { status: 'unchanged' } : {}),
        },
      });
      return tx.findOneByOrFail(SkillSourceEntity, { skillId: skill.id });
    });
  }
}
