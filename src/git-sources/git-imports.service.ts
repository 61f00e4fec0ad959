// Imports from git (docs/publishing.md#importing-from-git): the folder of one commit, read behind the
// allowlist and limits, becomes one package per skill, and each goes through the same inspection
// and publish path an upload takes.
import { Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { Problem } from '../package/problem';
import type { SkillEntity } from '../skills/skill.entity';
import type { NewSkill } from '../skills/skills.repository';
import { ImportItemDto, ImportResultDto, ImportSkillsBody, ImportStatus } from './dto/git-source.dto';
import { GitFetcher } from './git-fetcher.service';
import { GitPackages, Inspected, PublishedFrom } from './git-packages.service';
import type { GitFolder, GitLocation } from './git/git-remote.types';

@Injectable()
export class GitImportsService {
  constructor(
    private readonly fetcher: GitFetcher,
    private readonly packages: GitPackages,
  ) {}

  /**
   * `created` when any skill was created or versioned (201), else nothing new (200). `cancel`: the
   * client went away; what still runs against the remote stops (GIT_TIMEOUT, counted `cancelled`).
   */
  async import(
    caller: UserPrincipal,
    body: ImportSkillsBody,
    cancel?: AbortSignal,
  ): Promise<{ created: boolean; result: ImportResultDto }> {
    try {
      const result = await this.importOrFail(caller, body, cancel);
      for (const item of result.items) this.packages.counted(item.status);
      return { created: result.items.some((i) => i.status === 'created' || i.status === 'versioned'), result };
    } catch (err) {
      this.packages.countedFailure(err, cancel);
      throw err;
    }
  }

  private async importOrFail(
    caller: UserPrincipal,
    body: ImportSkillsBody,
    cancel: AbortSignal | undefined,
  ): Promise<ImportResultDto> {
    // Who may create where, and the url, ref and path: all checked before the remote is asked.
    const scope = await this.packages.scope(caller, body.namespace, body.public === true);
    const location = this.fetcher.locate(body);
    return this.fetcher.run(
      caller.userId,
      async (remote) => {
        const commit = await remote.resolve(location);
        const folder = await remote.readFolder(location, commit);
        const inspected: Inspected[] = [];
        // One at a time: the inspection pool is the replica's, shared with uploads.
        for (const skill of this.fetcher.skillsOf(folder, location.path))
          inspected.push(await this.packages.inspect(skill));
        const valid = inspected.filter((i) => i.errors.length === 0);
        if (valid.length === 0) {
          this.packages.rejected(inspected);
          throw invalidImport(inspected);
        }
        const targets = await this.packages.targets(caller, scope, valid);
        this.packages.rejected(inspected.filter((i) => i.errors.length > 0));
        const items: ImportItemDto[] = [];
        for (const one of inspected) {
          items.push(
            one.errors.length > 0
              ? invalidItem(one)
              : await this.publishOne(
                  caller.userId,
                  scope,
                  targets.get(one) ?? null,
                  one,
                  from(location, commit, folder, one),
                ),
          );
        }
        return { items };
      },
      cancel,
    );
  }

  private async publishOne(
    userId: number,
    scope: NewSkill,
    target: SkillEntity | null,
    one: Inspected,
    from: PublishedFrom,
  ): Promise<ImportItemDto> {
    const inspection = one.inspection!;
    const warnings = [...inspection.warnings, ...one.skill.warnings];
    if (!target) {
      const created = await this.packages.publishNew(scope, inspection, userId, from);
      return item(one, created.skill.id, created.latest.version, 'created', warnings);
    }
    const added = await this.packages.publishVersion(target, inspection, userId, from, 'import');
    return item(one, added.skill.id, added.latest.version, added.created ? 'versioned' : 'unchanged', warnings);
  }
}

/**
 * The version's source; the tree id of the skill's folder when it is the folder read (a child's is
 * read at its first check).
 */
function from(location: GitLocation, commit: string, folder: GitFolder, one: Inspected): PublishedFrom {
  return {
    source: { type: 'git', url: location.url, ref: location.ref, commit, path: one.skill.path },
    treeId: one.skill.path === location.path ? folder.treeId : null,
  };
}

function item(
  one: Inspected,
  skillId: number,
  version: number,
  status: ImportStatus,
  warnings: Problem[],
): ImportItemDto {
  return { name: one.inspection!.name!, path: one.skill.path, skill_id: skillId, version, status, warnings };
}

function invalidItem(one: Inspected): ImportItemDto {
  return {
    name: one.inspection?.name ?? one.skill.folderName,
    path: one.skill.path,
    skill_id: null,
    version: null,
    status: 'invalid',
    errors: one.errors,
    warnings: [...(one.inspection?.warnings ?? []), ...one.skill.warnings],
  };
}

/** No skill of the folder is valid: SKILL_INVALID as for an upload, every skill's problems named. */
function invalidImport(inspected: Inspected[]): DomainError {
  if (inspected.length === 1) {
    const [one] = inspected;
    return new DomainError('SKILL_INVALID', 'The skill package is invalid', {
      errors: one.errors,
      warnings: [...(one.inspection?.warnings ?? []), ...one.skill.warnings],
    });
  }
  return new DomainError('SKILL_INVALID', 'No skill of the folder is valid; nothing was imported', {
    errors: inspected.flatMap((one) => one.errors.map((e) => ({ ...e, message: `${one.skill.path}: ${e.message}` }))),
    warnings: [],
    items: inspected.map(invalidItem),
  });
}
