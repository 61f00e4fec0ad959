// A skill's git source (docs/publishing.md#check-and-update): what it was published from, whether
// the folder moved on since (the check), and a new version from where the ref is now (the update).
import { Inject, Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { MetricsService } from '../common/metrics/metrics.service';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { VersionDto } from '../skills/dto/skill.dto';
import { PackageInspector } from '../skills/package-inspector.service';
import { SkillReaders } from '../skills/skill-readers';
import type { SkillEntity } from '../skills/skill.entity';
import type { VersionSource } from '../skills/skill-version.entity';
import { toVersionDto } from '../skills/skill.mapper';
import { SkillsPublishService } from '../skills/skills-publish.service';
import { SkillsRepository } from '../skills/skills.repository';
import { SkillSourceDto } from './dto/git-source.dto';
import { folderSkills, skillArchive } from './folder-skills';
import { locate } from './git-location';
import { GIT_REMOTE } from './git-remote.provider';
import type { GitLocation, GitRemoteReader } from './git/git-remote.types';
import { ImportSlots, withDeadline } from './import-slots';
import { SkillSourceEntity } from './skill-source.entity';
import { SkillSourcesRepository } from './skill-sources.repository';

const NO_SOURCE = 'The skill has no git source';

@Injectable()
export class SkillSourcesService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(GIT_REMOTE) private readonly remote: GitRemoteReader,
    private readonly slots: ImportSlots,
    private readonly sources: SkillSourcesRepository,
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
    private readonly publish: SkillsPublishService,
    private readonly inspector: PackageInspector,
    private readonly metrics: MetricsService,
  ) {}

  async get(caller: UserPrincipal, skillId: number): Promise<SkillSourceDto> {
    const skill = await this.readers.readable(caller, await this.skills.findById(skillId));
    return toSourceDto(await this.sourceOf(skill));
  }

  /** Resolves the ref again and records whether the folder's tree differs from the published one. */
  async check(caller: UserPrincipal, skillId: number): Promise<SkillSourceDto> {
    const skill = await this.readers.readable(caller, await this.skills.findById(skillId));
    const row = await this.sourceOf(skill);
    const location = this.locationOf(row);
    return this.slots.run(caller.userId, async () => {
      const { latestCommit, publishedTreeId, latestTreeId } = await withDeadline(
        this.config.git.timeoutMs,
        async (signal) => {
          const latest = await this.remote.resolve(location, signal);
          const published = row.treeId ?? (await this.remote.treeId(location, row.commit, signal));
          const now = latest === row.commit ? published : await this.remote.treeId(location, latest, signal);
          return { latestCommit: latest, publishedTreeId: published, latestTreeId: now };
        },
      );
      const checked = await this.sources.recordCheck(skill, {
        latestCommit,
        behind: latestTreeId !== publishedTreeId,
        publishedTreeId,
      });
      return toSourceDto(checked);
    });
  }

  /**
   * A new version from the ref's current commit when the folder's tree changed (`created`);
   * otherwise nothing new, and the latest version.
   */
  async update(caller: UserPrincipal, skillId: number): Promise<{ created: boolean; version: VersionDto }> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(skillId));
    const row = await this.sourceOf(skill);
    const location = this.locationOf(row);
    try {
      const result = await this.slots.run(caller.userId, () =>
        withDeadline(this.config.git.timeoutMs, (signal) => this.updateFrom(caller, skill, row, location, signal)),
      );
      this.metrics.gitImported(result.created ? 'versioned' : 'unchanged');
      return result;
    } catch (err) {
      this.metrics.gitImported(err instanceof DomainError ? err.code : 'INTERNAL');
      throw err;
    }
  }

  private async updateFrom(
    caller: UserPrincipal,
    skill: SkillEntity,
    row: SkillSourceEntity,
    location: GitLocation,
    signal: AbortSignal,
  ): Promise<{ created: boolean; version: VersionDto }> {
    const commit = await this.remote.resolve(location, signal);
    const publishedTreeId = row.treeId ?? (await this.remote.treeId(location, row.commit, signal));
    if (commit === row.commit || (await this.remote.treeId(location, commit, signal)) === publishedTreeId) {
      await this.sources.recordCheck(skill, { latestCommit: commit, behind: false, publishedTreeId }, 'update');
      return { created: false, version: await this.latestOf(skill) };
    }
    const folder = await this.remote.readFolder(location, commit, signal);
    if (!folder.files.some((f) => f.path === 'SKILL.md')) {
      throw new DomainError('SKILL_INVALID', 'The skill package is invalid', {
        errors: [{ code: 'SKILL_MD_MISSING', message: `${location.path || '/'} no longer holds SKILL.md.` }],
        warnings: [],
      });
    }
    const [one] = folderSkills(folder, location.path, this.config.packageLimits.maxEntries);
    const inspection = await this.inspector.inspect(skillArchive(one));
    this.publish.rejectInvalid(inspection, one.problems);
    const source: VersionSource = { type: 'git', url: row.url, ref: row.ref, commit, path: row.path };
    const added = await this.publish.publishVersion(skill, inspection, caller.userId, source, (tx, s, created) =>
      this.sources.record(
        tx,
        s,
        { source, treeId: folder.treeId },
        { verb: 'update', status: created ? 'versioned' : 'unchanged' },
      ),
    );
    return { created: added.created, version: toVersionDto(added.latest) };
  }

  private async latestOf(skill: SkillEntity): Promise<VersionDto> {
    const found = await this.skills.findWithLatest(skill.id);
    if (!found) throw DomainError.notFound('Skill not found');
    return toVersionDto(found.latest);
  }

  private async sourceOf(skill: SkillEntity): Promise<SkillSourceEntity> {
    const row = await this.sources.find(skill.id);
    if (!row) throw DomainError.notFound(NO_SOURCE);
    return row;
  }

  /** Checked again against today's allowlist: a host the operator removed is refused. */
  private locationOf(row: SkillSourceEntity): GitLocation {
    return locate({ url: row.url, ref: row.ref === 'HEAD' ? undefined : row.ref, path: row.path }, this.config.git);
  }
}

function toSourceDto(row: SkillSourceEntity): SkillSourceDto {
  return {
    source: { type: 'git', url: row.url, ref: row.ref, commit: row.commit, path: row.path },
    latest_commit: row.latestCommit,
    behind: row.behind,
    checked_at: row.checkedAt?.toISOString() ?? null,
  };
}
