// Publishing: validate the package before any transaction, write its bytes to the store, then one
// transaction per publish (docs/storage.md#publish): a crash between the two leaves at most bytes
// nothing refers to (the garbage sweep's), never a version without its bytes.
import { Injectable } from '@nestjs/common';
import { DEFAULT_NAMESPACE, groupNameProblems } from '../access';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { violatedUnique } from '../common/errors/pg-errors';
import { ScopedAccess } from '../groups/scoped-access.service';
import { MetricsService } from '../common/metrics/metrics.service';
import { PublishedSkillDto, PublishSkillForm, ValidationReportDto } from './dto/skill.dto';
import { PackageInspection } from '../package/inspect-package';
import { PackageInspector } from './package-inspector.service';
import { SkillReaders } from './skill-readers';
import { toSkillDto } from './skill.mapper';
import { CanonicalBytes, PublishedBytes } from './published-bytes.service';
import { NewSkill, NewVersion, PublishedAlso, SkillsRepository, SkillWithLatest } from './skills.repository';
import type { SkillEntity } from './skill.entity';
import type { VersionSource } from './skill-version.entity';
import type { Problem } from '../package/problem';

export interface UploadedPackage {
  buffer: Buffer;
}

@Injectable()
export class SkillsPublishService {
  constructor(
    private readonly skills: SkillsRepository,
    private readonly access: ScopedAccess,
    private readonly readers: SkillReaders,
    private readonly inspector: PackageInspector,
    private readonly metrics: MetricsService,
    private readonly bytes: PublishedBytes,
  ) {}

  async validate(file: UploadedPackage | undefined): Promise<ValidationReportDto> {
    const report = await this.inspector.inspect(requireFile(file).buffer);
    return {
      valid: report.valid,
      name: report.name,
      description: report.description,
      errors: report.errors,
      warnings: report.warnings,
    };
  }

  async create(
    caller: UserPrincipal,
    file: UploadedPackage | undefined,
    form: PublishSkillForm,
  ): Promise<PublishedSkillDto> {
    const scope = await this.newSkillScope(
      caller,
      form.namespace,
      form.public === 'true',
      file ? [] : ['file is required'],
    );
    const inspection = await this.inspect(file!);
    const created = await this.publishNew(scope, inspection, caller.userId, null);
    return { ...toSkillDto(created.skill, created.latest, created.tags), warnings: inspection.warnings };
  }

  /**
   * The scope a new skill of `caller` goes to, checked before anything is read: the namespace rules
   * (400, with `more` problems of the caller's own) and the caller's right to create there (404, 403).
   */
  async newSkillScope(
    caller: UserPrincipal,
    namespace = DEFAULT_NAMESPACE,
    isPublic = false,
    more: string[] = [],
  ): Promise<NewSkill> {
    const problems = namespace === DEFAULT_NAMESPACE ? [] : groupNameProblems(namespace).map((p) => `namespace: ${p}`);
    if (isPublic && namespace !== DEFAULT_NAMESPACE) problems.push('public=true needs namespace default');
    problems.push(...more);
    if (problems.length) throw DomainError.validation(problems);
    await this.access.requireCreate(caller, namespace, isPublic);
    return { name: '', namespace, isPublic, ownerUserId: isPublic ? null : caller.userId };
  }

  /** Version 1 of a new skill in `scope` from a valid inspection; 409 SKILL_EXISTS when the name is taken there. */
  async publishNew(
    scope: NewSkill,
    inspection: PackageInspection,
    userId: number,
    source: VersionSource | null,
    also?: PublishedAlso,
  ): Promise<SkillWithLatest> {
    try {
      return await this.bytes.keep(
        canonicalBytes(inspection),
        (kept) =>
          this.skills.createSkill(
            { ...scope, name: inspection.name! },
            newVersion(inspection, userId, source),
            kept,
            also,
          ),
        () => true,
      );
    } catch (err) {
      if (/^skills_\w+_name_key$/.test(violatedUnique(err) ?? '')) {
        throw new DomainError('SKILL_EXISTS', `A skill named ${inspection.name} already exists in this scope`);
      }
      throw err;
    }
  }

  /** `created: false` when the files equal the latest version's, however they were zipped (nothing is written). */
  async addVersion(
    caller: UserPrincipal,
    skillId: number,
    file: UploadedPackage | undefined,
  ): Promise<{ created: boolean; skill: PublishedSkillDto }> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(skillId));
    const inspection = await this.inspect(requireFile(file));
    const result = await this.publishVersion(skill, inspection, caller.userId, null);
    return {
      created: result.created,
      skill: { ...toSkillDto(result.skill, result.latest, result.tags), warnings: inspection.warnings },
    };
  }

  /** Version N+1 of `skill` (whose change rights the caller has) from a valid inspection of the same name. */
  async publishVersion(
    skill: SkillEntity,
    inspection: PackageInspection,
    userId: number,
    source: VersionSource | null,
    also?: PublishedAlso,
  ): Promise<SkillWithLatest & { created: boolean }> {
    if (inspection.name !== skill.name) {
      throw new DomainError('NAME_MISMATCH', `The package is named ${inspection.name}, the skill ${skill.name}`);
    }
    return this.bytes.keep(
      canonicalBytes(inspection),
      (kept) => this.skills.addVersion(skill.id, newVersion(inspection, userId, source), kept, also),
      (added) => added.created,
    );
  }

  /** 400 SKILL_INVALID with every problem (`more` first: those found before the package was read). */
  rejectInvalid(inspection: PackageInspection | null, more: Problem[] = []): void {
    const errors = [...more, ...(inspection?.errors ?? [])];
    if (errors.length === 0) return;
    this.metrics.packageRejected(errors.map((e) => e.code));
    throw new DomainError('SKILL_INVALID', 'The skill package is invalid', {
      errors,
      warnings: inspection?.warnings ?? [],
    });
  }

  private async inspect(file: UploadedPackage): Promise<PackageInspection> {
    const inspection = await this.inspector.inspect(file.buffer);
    this.rejectInvalid(inspection);
    return inspection;
  }
}

function requireFile(file: UploadedPackage | undefined): UploadedPackage {
  if (!file) throw DomainError.validation(['file is required']);
  return file;
}

/** What is stored is the canonical zip rebuilt from the accepted files, never the upload. */
function canonicalBytes(inspection: PackageInspection): CanonicalBytes {
  return { contentHash: inspection.contentHash!, canonical: inspection.canonical! };
}

function newVersion(inspection: PackageInspection, userId: number, source: VersionSource | null): NewVersion {
  return {
    size: inspection.canonical!.length,
    contentHash: inspection.contentHash!,
    fileOffsets: inspection.fileOffsets!,
    revision: inspection.revision!,
    fileCount: inspection.files.length,
    manifest: inspection.files,
    frontmatter: inspection.frontmatter ?? {},
    skillMd: inspection.skillMd!,
    allowedTools: inspection.allowedTools,
    requires: inspection.requires,
    description: inspection.description!,
    createdByUserId: userId,
    source,
  };
}
