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
import { NewVersion, SkillsRepository } from './skills.repository';

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
    const namespace = form.namespace ?? DEFAULT_NAMESPACE;
    const isPublic = form.public === 'true';
    const problems = namespace === DEFAULT_NAMESPACE ? [] : groupNameProblems(namespace).map((p) => `namespace: ${p}`);
    if (isPublic && namespace !== DEFAULT_NAMESPACE) problems.push('public=true needs namespace default');
    if (!file) problems.push('file is required');
    if (problems.length) throw DomainError.validation(problems);
    await this.access.requireCreate(caller, namespace, isPublic);
    const inspection = await this.inspect(file!);
    try {
      const created = await this.bytes.keep(
        canonicalBytes(inspection),
        (kept) =>
          this.skills.createSkill(
            { name: inspection.name!, namespace, isPublic, ownerUserId: isPublic ? null : caller.userId },
            newVersion(inspection, caller.userId),
            kept,
          ),
        () => true,
      );
      return { ...toSkillDto(created.skill, created.latest, created.tags), warnings: inspection.warnings };
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
    if (inspection.name !== skill.name) {
      throw new DomainError('NAME_MISMATCH', `The package is named ${inspection.name}, the skill ${skill.name}`);
    }
    const result = await this.bytes.keep(
      canonicalBytes(inspection),
      (kept) => this.skills.addVersion(skill.id, newVersion(inspection, caller.userId), kept),
      (added) => added.created,
    );
    return {
      created: result.created,
      skill: { ...toSkillDto(result.skill, result.latest, result.tags), warnings: inspection.warnings },
    };
  }

  private async inspect(file: UploadedPackage): Promise<PackageInspection> {
    const inspection = await this.inspector.inspect(file.buffer);
    if (!inspection.valid) {
      this.metrics.packageRejected(inspection.errors.map((e) => e.code));
      throw new DomainError('SKILL_INVALID', 'The skill package is invalid', {
        errors: inspection.errors,
        warnings: inspection.warnings,
      });
    }
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

function newVersion(inspection: PackageInspection, userId: number): NewVersion {
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
  };
}
