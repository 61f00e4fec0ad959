// A skill's git source (docs/publishing.md#check-and-update): what it was published from, whether
// the folder moved on since (the check), and a new version from where the ref is now (the update).
import { Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { problem, shown } from '../package/problem';
import { VersionDto } from '../skills/dto/skill.dto';
import { SkillReaders } from '../skills/skill-readers';
import type { SkillEntity } from '../skills/skill.entity';
import { toVersionDto } from '../skills/skill.mapper';
import { SkillsRepository } from '../skills/skills.repository';
import { SkillSourceDto } from './dto/git-source.dto';
import { GitFetcher, GitReads } from './git-fetcher.service';
import { GitPackages } from './git-packages.service';
import type { GitLocation } from './git/git-remote.types';
import { SkillSourceEntity } from './skill-source.entity';
import { SkillSourcesRepository } from './skill-sources.repository';

@Injectable()
export class SkillSourcesService {
  constructor(
    private readonly fetcher: GitFetcher,
    private readonly packages: GitPackages,
    private readonly sources: SkillSourcesRepository,
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
  ) {}

  async get(caller: UserPrincipal, skillId: number): Promise<SkillSourceDto> {
    const skill = await this.readers.readable(caller, await this.skills.findById(skillId));
    return toSourceDto(await this.sourceOf(skill));
  }

  /** Resolves the ref again and records whether the folder's tree differs from the published one. */
  async check(caller: UserPrincipal, skillId: number, cancel?: AbortSignal): Promise<SkillSourceDto> {
    const skill = await this.readers.readable(caller, await this.skills.findById(skillId));
    const row = await this.sourceOf(skill);
    const location = this.locationOf(row);
    const found = await this.fetcher.run(caller.userId, (remote) => drift(remote, row, location), cancel);
    return toSourceDto(await this.sources.recordCheck(skill, found));
  }

  /**
   * A new version from the ref's current commit when the folder's tree changed (`created`);
   * otherwise nothing new, and the latest version.
   */
  async update(
    caller: UserPrincipal,
    skillId: number,
    cancel?: AbortSignal,
  ): Promise<{ created: boolean; version: VersionDto }> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(skillId));
    const row = await this.sourceOf(skill);
    const location = this.locationOf(row);
    try {
      const result = await this.fetcher.run(
        caller.userId,
        (remote) => this.updateFrom(remote, caller, skill, row, location),
        cancel,
      );
      this.packages.counted(result.created ? 'versioned' : 'unchanged');
      return result;
    } catch (err) {
      this.packages.countedFailure(err, cancel);
      throw err;
    }
  }

  private async updateFrom(
    remote: GitReads,
    caller: UserPrincipal,
    skill: SkillEntity,
    row: SkillSourceEntity,
    location: GitLocation,
  ): Promise<{ created: boolean; version: VersionDto }> {
    const found = await drift(remote, row, location);
    if (!found.behind) {
      await this.sources.recordCheck(skill, found, 'update');
      return { created: false, version: await this.latestOf(skill) };
    }
    const commit = found.latestCommit;
    const folder = await remote.readFolder(location, commit);
    if (!folder.files.some((f) => f.path === 'SKILL.md')) {
      throw new DomainError('SKILL_INVALID', 'The skill package is invalid', {
        errors: [problem('SKILL_MD_MISSING', `${shown(location.path || '/')} no longer holds SKILL.md.`)],
        warnings: [],
      });
    }
    const [one] = this.fetcher.skillsOf(folder, location.path);
    const inspection = this.packages.requireValid(await this.packages.inspect(one));
    const source = { type: 'git' as const, url: row.url, ref: row.ref, commit, path: row.path };
    const added = await this.packages.publishVersion(
      skill,
      inspection,
      caller.userId,
      { source, treeId: folder.treeId },
      'update',
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
    if (!row) throw DomainError.notFound('The skill has no git source');
    return row;
  }

  /** Checked again against today's allowlist: a host the operator removed is refused. */
  private locationOf(row: SkillSourceEntity): GitLocation {
    return this.fetcher.locate({ url: row.url, ref: row.ref === 'HEAD' ? undefined : row.ref, path: row.path });
  }
}

/** What the ref names now, and whether the folder's tree there differs from the published commit's. */
async function drift(
  remote: GitReads,
  row: SkillSourceEntity,
  location: GitLocation,
): Promise<{ latestCommit: string; behind: boolean; publishedTreeId: string }> {
  const latestCommit = await remote.resolve(location);
  const publishedTreeId = row.treeId ?? (await remote.treeId(location, row.commit));
  if (latestCommit === row.commit) return { latestCommit, behind: false, publishedTreeId };
  const latestTreeId = await remote.treeId(location, latestCommit);
  return { latestCommit, behind: latestTreeId !== publishedTreeId, publishedTreeId };
}

function toSourceDto(row: SkillSourceEntity): SkillSourceDto {
  return {
    source: { type: 'git', url: row.url, ref: row.ref, commit: row.commit, path: row.path },
    latest_commit: row.latestCommit,
    behind: row.behind,
    checked_at: row.checkedAt?.toISOString() ?? null,
  };
}
