// Manifests and the Wegent lookup for users and task tokens (the bytes: package-reads.service.ts). A
// token reaches only the skills its task resolves to, at the versions it resolves to.
import { Injectable } from '@nestjs/common';
import { Principal, TaskTokenPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { DEFAULT_NAMESPACE, tokenSkillRef } from '../access';
import { lookupByName, plainIdentity, SkillRef } from '../resolver';
import { ManifestDto } from '../skills/dto/skill.dto';
import type { SkillFile } from '../skills/skill-files.service';
import { SKILL_NOT_FOUND, SkillReaders } from '../skills/skill-readers';
import { SkillEntity } from '../skills/skill.entity';
import { SkillsReadService } from '../skills/skills-read.service';
import { SkillsRepository } from '../skills/skills.repository';
import { TASK_NOT_FOUND } from '../tasks/tasks.service';
import { ResolutionFactsRepository } from '../selection-facts/resolution-facts.repository';
import { TaskResolutionService } from '../resolution/task-resolution.service';
import { optionalId, PackageReads } from './package-reads.service';

interface ReadTarget {
  skill: SkillEntity;
  version: number;
  immutable: boolean;
  /** Admins still read a revoked version's bytes. */
  admin: boolean;
}

export interface WegentSkill {
  apiVersion: 'agent.wecode.io/v1';
  kind: 'Skill';
  metadata: { name: string; namespace: string; labels: { id: string } };
  spec: { description: string };
  status: { fileHash: string };
}

@Injectable()
export class SkillDownloadsService {
  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly facts: ResolutionFactsRepository,
    private readonly skills: SkillsRepository,
    private readonly reads: SkillsReadService,
    private readonly readers: SkillReaders,
    private readonly packages: PackageReads,
  ) {}

  /** The manifest with SKILL.md, for users and for task tokens (their resolved set only). */
  async manifest(principal: Principal, skillId: number, version: number | undefined): Promise<ManifestDto> {
    const target = await this.target(principal, skillId, version);
    return this.reads.manifestReadable(target.skill, target.version, target.admin);
  }

  /** One file's bytes (no conditional request), and the version they were read from (MCP `resources/read`). */
  openFile(
    principal: Principal,
    skillId: number,
    path: string,
    version: number | undefined,
  ): Promise<Extract<SkillFile, { notModified: false }> & { version: number }> {
    return this.packages.openFile(principal, skillId, path, version);
  }

  /**
   * Which skill and version a read means: for a user, a skill they may read at `version` (the
   * latest by default); for a task token, a skill of its task's resolved set at a version the set
   * names, as for downloads. `immutable` when a version was asked for.
   */
  private async target(principal: Principal, skillId: number, version: number | undefined): Promise<ReadTarget> {
    if (principal.kind === 'task_token') return this.tokenTarget(principal, skillId, version);
    const skill = await this.readers.readable(principal, await this.skills.findById(skillId));
    return {
      skill,
      version: version ?? (await this.skills.latestVersionOf(skill)),
      immutable: version !== undefined,
      admin: principal.isAdmin,
    };
  }

  private async tokenTarget(
    principal: TaskTokenPrincipal,
    skillId: number,
    version: number | undefined,
  ): Promise<ReadTarget> {
    const ref = tokenSkillRef(await this.resolution.resolve(principal, principal.taskId), skillId, version);
    const skill = ref ? await this.skills.findById(skillId) : null;
    if (!ref || !skill) throw DomainError.notFound(SKILL_NOT_FOUND);
    return { skill, version: ref.version, immutable: version !== undefined, admin: false };
  }

  /** With a task (a token's by default): what `name` resolves to for it; else a name lookup as the caller. */
  async find(
    principal: Principal,
    query: { name: string; namespace?: string; task_id?: string },
  ): Promise<{ items: WegentSkill[] }> {
    const taskId =
      optionalId(query.task_id, TASK_NOT_FOUND) ?? (principal.kind === 'task_token' ? principal.taskId : undefined);
    let ref: Pick<SkillRef, 'skill_id' | 'content_hash'> | undefined;
    if (taskId !== undefined) {
      const resolved = await this.resolution.resolve(principal, taskId);
      ref = Object.hasOwn(resolved.skill_refs, query.name) ? resolved.skill_refs[query.name] : undefined;
    } else if (principal.kind === 'user') {
      const namespace = query.namespace ?? DEFAULT_NAMESPACE;
      const [identities, catalog] = await Promise.all([
        this.facts.loadIdentities([principal.userId]),
        this.facts.loadCatalog({
          names: [query.name],
          personalOwners: [principal.userId],
          namespaces: [namespace],
          ids: [],
          versions: [],
        }),
      ]);
      const identity = identities[principal.userId] ?? plainIdentity(principal.userId);
      const outcome = lookupByName(catalog, identity, namespace, query.name);
      ref = outcome.ok ? outcome.ref : undefined;
    }
    const skill = ref ? await this.skills.findById(ref.skill_id) : null;
    if (!ref || !skill) return { items: [] };
    return {
      items: [
        {
          apiVersion: 'agent.wecode.io/v1',
          kind: 'Skill',
          metadata: { name: skill.name, namespace: skill.namespace, labels: { id: String(skill.id) } },
          spec: { description: skill.description },
          status: { fileHash: ref.content_hash.replace(/^sha256:/, '') },
        },
      ],
    };
  }
}
