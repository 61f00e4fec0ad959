// Imports from git (docs/publishing.md#importing-from-git): the folder of one commit, read behind the
// allowlist and limits, becomes one package per skill, and each goes through the same inspection
// and publish path an upload takes.
import { Inject, Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { MetricsService } from '../common/metrics/metrics.service';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { PackageInspection } from '../package/inspect-package';
import { Problem, problem } from '../package/problem';
import { PackageInspector } from '../skills/package-inspector.service';
import { SkillReaders } from '../skills/skill-readers';
import type { SkillEntity } from '../skills/skill.entity';
import type { VersionSource } from '../skills/skill-version.entity';
import { SkillsPublishService } from '../skills/skills-publish.service';
import { NewSkill, SkillsRepository } from '../skills/skills.repository';
import { ImportItemDto, ImportResultDto, ImportSkillsBody } from './dto/git-source.dto';
import { FolderSkill, folderSkills, skillArchive } from './folder-skills';
import { locate } from './git-location';
import { GIT_REMOTE } from './git-remote.provider';
import type { GitRemoteReader } from './git/git-remote.types';
import { ImportSlots, withDeadline } from './import-slots';
import { SkillSourcesRepository } from './skill-sources.repository';

/** One skill of the folder after inspection. */
interface Inspected {
  skill: FolderSkill;
  inspection: PackageInspection | null;
  errors: Problem[];
}

@Injectable()
export class GitImportsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(GIT_REMOTE) private readonly remote: GitRemoteReader,
    private readonly slots: ImportSlots,
    private readonly publish: SkillsPublishService,
    private readonly inspector: PackageInspector,
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
    private readonly sources: SkillSourcesRepository,
    private readonly metrics: MetricsService,
  ) {}

  async import(caller: UserPrincipal, body: ImportSkillsBody): Promise<{ created: boolean; result: ImportResultDto }> {
    try {
      const result = await this.importOrFail(caller, body);
      for (const item of result.items) this.metrics.gitImported(item.status);
      return { created: result.items.some((i) => i.status === 'created' || i.status === 'versioned'), result };
    } catch (err) {
      this.metrics.gitImported(err instanceof DomainError ? err.code : 'INTERNAL');
      throw err;
    }
  }

  private async importOrFail(caller: UserPrincipal, body: ImportSkillsBody): Promise<ImportResultDto> {
    const scope = await this.publish.newSkillScope(caller, body.namespace, body.public === true);
    const location = locate(body, this.config.git);
    return this.slots.run(caller.userId, async () => {
      const { commit, folder } = await withDeadline(this.config.git.timeoutMs, async (signal) => {
        const resolved = await this.remote.resolve(location, signal);
        return { commit: resolved, folder: await this.remote.readFolder(location, resolved, signal) };
      });
      const found = folderSkills(folder, location.path, this.config.packageLimits.maxEntries);
      const inspected: Inspected[] = [];
      // One at a time: the inspection pool is the replica's, shared with uploads.
      for (const skill of found) inspected.push(await this.inspect(skill));
      const valid = inspected.filter((i) => i.errors.length === 0);
      if (valid.length === 0) throw invalidImport(inspected);
      const targets = await this.targets(caller, scope, valid);
      const items: ImportItemDto[] = [];
      for (const one of inspected) {
        if (one.errors.length > 0) {
          items.push(invalidItem(one));
          continue;
        }
        const source: VersionSource = {
          type: 'git',
          url: location.url,
          ref: location.ref,
          commit,
          path: one.skill.path,
        };
        items.push(await this.publishOne(caller, scope, targets.get(one), one, source, folder.treeId, location.path));
      }
      return { items };
    });
  }

  /** The package of one skill, judged as an upload is. */
  private async inspect(skill: FolderSkill): Promise<Inspected> {
    if (skill.files.length === 0) return { skill, inspection: null, errors: skill.problems };
    const inspection = await this.inspector.inspect(skillArchive(skill));
    const errors = [...skill.problems, ...inspection.errors];
    if (errors.length > 0) this.metrics.packageRejected(errors.map((e) => e.code));
    return { skill, inspection, errors };
  }

  /**
   * The skill each valid package goes to: the active skill of its name in the scope (which the
   * caller must be able to change: 403 otherwise, before anything is written), or none (a new one).
   * Two folders naming the same skill: the second is invalid.
   */
  private async targets(
    caller: UserPrincipal,
    scope: NewSkill,
    valid: Inspected[],
  ): Promise<Map<Inspected, SkillEntity | null>> {
    const targets = new Map<Inspected, SkillEntity | null>();
    const seen = new Set<string>();
    for (const one of valid) {
      const name = one.inspection!.name!;
      if (seen.has(name)) {
        one.errors.push(problem('NAME_INVALID', `Another folder of this import holds a skill named ${name}.`, 'name'));
        continue;
      }
      seen.add(name);
      const existing = await this.skills.findActiveInScope({ ...scope, name });
      targets.set(one, existing ? await this.readers.changeable(caller, existing) : null);
    }
    return targets;
  }

  private async publishOne(
    caller: UserPrincipal,
    scope: NewSkill,
    target: SkillEntity | null | undefined,
    one: Inspected,
    source: VersionSource,
    rootTreeId: string,
    rootPath: string,
  ): Promise<ImportItemDto> {
    const inspection = one.inspection!;
    // The tree id of the skill's own folder, which checks compare; a child's is read at its first check.
    const treeId = one.skill.path === rootPath ? rootTreeId : null;
    const also = (status: string) => (tx: Parameters<typeof this.sources.record>[0], skill: SkillEntity) =>
      this.sources.record(tx, skill, { source, treeId }, { verb: 'import', status });
    const warnings = [...inspection.warnings, ...one.skill.warnings];
    if (!target) {
      const created = await this.publish.publishNew(scope, inspection, caller.userId, source, also('created'));
      return item(one, created.skill.id, created.latest.version, 'created', warnings);
    }
    let status: 'versioned' | 'unchanged' = 'versioned';
    const added = await this.publish.publishVersion(target, inspection, caller.userId, source, (tx, skill, created) => {
      status = created ? 'versioned' : 'unchanged';
      return also(status)(tx, skill);
    });
    return item(one, added.skill.id, added.latest.version, added.created ? 'versioned' : 'unchanged', warnings);
  }
}

function item(
  one: Inspected,
  skillId: number,
  version: number,
  status: 'created' | 'versioned' | 'unchanged',
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
