// The skills of a git folder through the upload's own path (docs/publishing.md#importing-from-git):
// inspected by the same worker pool and rules, published by the same service, with the skill's
// source written in the publish's transaction.
import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { MetricsService } from '../common/metrics/metrics.service';
import type { PackageInspection } from '../package/inspect-package';
import { Problem, problem } from '../package/problem';
import { PackageInspector } from '../skills/package-inspector.service';
import { SkillReaders } from '../skills/skill-readers';
import type { SkillEntity } from '../skills/skill.entity';
import type { VersionSource } from '../skills/skill-version.entity';
import { SkillsPublishService } from '../skills/skills-publish.service';
import { NewSkill, SkillsRepository, SkillWithLatest } from '../skills/skills.repository';
import { FolderSkill, skillArchive } from './folder-skills';
import { cancelledBy } from './import-slots';
import { SkillSourcesRepository } from './skill-sources.repository';

/** One skill of a folder after inspection: valid when `errors` is empty. */
export interface Inspected {
  skill: FolderSkill;
  inspection: PackageInspection | null;
  errors: Problem[];
}

/** Where a version comes from, and the folder's tree id there when it was read (null: not read). */
export interface PublishedFrom {
  source: VersionSource;
  treeId: string | null;
}

@Injectable()
export class GitPackages {
  constructor(
    private readonly inspector: PackageInspector,
    private readonly publish: SkillsPublishService,
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
    private readonly sources: SkillSourcesRepository,
    private readonly metrics: MetricsService,
  ) {}

  /** The scope of the caller's new skills, checked before the remote is asked anything. */
  scope(caller: UserPrincipal, namespace: string | undefined, isPublic: boolean): Promise<NewSkill> {
    return this.publish.newSkillScope(caller, namespace, isPublic);
  }

  /** The package of one skill, judged as an upload of its folder is. */
  async inspect(skill: FolderSkill): Promise<Inspected> {
    if (skill.files.length === 0) return { skill, inspection: null, errors: skill.problems };
    const inspection = await this.inspector.inspect(skillArchive(skill));
    return { skill, inspection, errors: [...skill.problems, ...inspection.errors] };
  }

  /** Counts the problems of packages refused as invalid, as uploads' are. */
  rejected(invalid: Inspected[]): void {
    for (const one of invalid) this.metrics.packageRejected(one.errors.map((e) => e.code));
  }

  /** The inspection of `one`, or 400 SKILL_INVALID with every problem. */
  requireValid(one: Inspected): PackageInspection {
    this.publish.rejectInvalid(one.inspection, one.skill.problems);
    return one.inspection!;
  }

  /**
   * The skill each valid package goes to: the active skill of its name in the scope (which the
   * caller must be able to change: 403 otherwise, before anything is written), or none (a new one).
   * Two folders naming the same skill: the second gets an error and no target.
   */
  async targets(
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

  /** Version 1 of a new skill, its source recorded (`skill.import`). */
  publishNew(
    scope: NewSkill,
    inspection: PackageInspection,
    userId: number,
    from: PublishedFrom,
  ): Promise<SkillWithLatest> {
    return this.publish.publishNew(scope, inspection, userId, from.source, (tx, skill) =>
      this.sources.record(tx, skill, from, { verb: 'import', status: 'created' }),
    );
  }

  /**
   * The next version of `skill` (nothing when the files are unchanged), its source recorded either
   * way: `skill.import` for an import, `skill_source.update` for an update.
   */
  publishVersion(
    skill: SkillEntity,
    inspection: PackageInspection,
    userId: number,
    from: PublishedFrom,
    verb: 'import' | 'update',
  ): Promise<SkillWithLatest & { created: boolean }> {
    return this.publish.publishVersion(skill, inspection, userId, from.source, (tx, s, created) =>
      this.sources.record(tx, s, from, { verb, status: created ? 'versioned' : 'unchanged' }),
    );
  }

  /** Counts one skill of an import or update by outcome. */
  counted(outcome: string): void {
    this.metrics.gitImported(outcome);
  }

  /** Counts an import or update that failed: `cancelled` when its client went away, else by its error code. */
  countedFailure(err: unknown, cancel: AbortSignal | undefined): void {
    this.metrics.gitImported(
      cancelledBy(err, cancel) ? 'cancelled' : err instanceof DomainError ? err.code : 'INTERNAL',
    );
  }
}
