// Downloads, manifests, single files and the Wegent lookup for users and task tokens. A token
// reaches only the skills its task resolves to, at the versions it resolves to.
import { Injectable } from '@nestjs/common';
import { Principal, TaskTokenPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import { parseId } from '../common/http/id.pipe';
import { DEFAULT_NAMESPACE, tokenReadsTask, tokenSkillRef } from '../access';
import { lookupByName, plainIdentity, SkillRef } from '../resolver';
import { ManifestDto } from '../skills/dto/skill.dto';
import { PackageDelivery, SkillDownload } from '../skills/package-delivery.service';
import { SkillBytesRepository, SkillVersionRow, VersionBytes, VersionFiles } from '../skills/skill-bytes.repository';
import { SkillFile, SkillFilesService, VERSION_NOT_FOUND } from '../skills/skill-files.service';
import { SKILL_NOT_FOUND, SkillReaders } from '../skills/skill-readers';
import { SkillEntity } from '../skills/skill.entity';
import { SkillsReadService } from '../skills/skills-read.service';
import { SkillsRepository } from '../skills/skills.repository';
import { TASK_NOT_FOUND } from '../tasks/tasks.service';
import { ResolutionFactsRepository } from '../selection-facts/resolution-facts.repository';
import { TaskResolutionService } from '../resolution/task-resolution.service';
import { DownloadRows } from './download-rows';

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

/** A query-string id: absent is undefined, anything but a positive 32-bit integer names nothing. */
function optionalId(value: string | undefined, notFound: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const id = parseId(value);
  if (id === null) throw DomainError.notFound(notFound);
  return id;
}

@Injectable()
export class SkillDownloadsService {
  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly facts: ResolutionFactsRepository,
    private readonly skills: SkillsRepository,
    private readonly reads: SkillsReadService,
    private readonly readers: SkillReaders,
    private readonly files: SkillFilesService,
    private readonly bytes: SkillBytesRepository,
    private readonly delivery: PackageDelivery,
    private readonly rows: DownloadRows,
  ) {}

  /**
   * A version's package (docs/storage.md#downloads): access, lifecycle and If-None-Match are decided
   * first, from at most one statement, kept until the next change (DownloadRows; none at all for a
   * task token's 304: its resolved ref names the hash); then a redirect to the store, when
   * `redirect` allows it, or the bytes.
   */
  async download(
    principal: Principal,
    skillId: number,
    query: { version?: string; task_id?: string },
    ifNoneMatch: string | undefined,
    redirect: boolean,
  ): Promise<SkillDownload> {
    const version = optionalId(query.version, VERSION_NOT_FOUND);
    const taskId = optionalId(query.task_id, TASK_NOT_FOUND);
    const immutable = version !== undefined;
    if (principal.kind === 'user') {
      const row = await this.userRow(principal, skillId, version, (id, v) => this.rows.find(id, v));
      return this.delivery.deliver(row.skill, row.version, {
        ifNoneMatch,
        immutable,
        admin: principal.isAdmin,
        redirect,
      });
    }
    if (taskId !== undefined && !tokenReadsTask(principal, taskId)) throw DomainError.notFound(TASK_NOT_FOUND);
    const ref = tokenSkillRef(await this.resolution.resolve(principal, principal.taskId), skillId, version);
    if (!ref) throw DomainError.notFound(SKILL_NOT_FOUND);
    // The resolved set holds no revoked version: the hash alone decides a 304.
    if (ifNoneMatchHits(ifNoneMatch, ref.content_hash)) return { kind: 'not_modified', contentHash: ref.content_hash };
    const row = await this.rows.find(skillId, ref.version);
    if (!row?.version) throw DomainError.notFound(SKILL_NOT_FOUND);
    return this.delivery.deliver(row.skill, row.version, { ifNoneMatch, immutable, admin: false, redirect });
  }

  /** The skill `skillId` at `version` (else its latest), read in one statement, when `principal` may read it. */
  private async userRow<V extends VersionBytes>(
    principal: Principal & { kind: 'user' },
    skillId: number,
    version: number | undefined,
    read: (skillId: number, version: number | null) => Promise<SkillVersionRow<V> | null>,
  ): Promise<{ skill: SkillEntity; version: V }> {
    const row = await read(skillId, version ?? null);
    const skill = await this.readers.readable(principal, row?.skill ?? null);
    if (!row!.version) throw DomainError.notFound(VERSION_NOT_FOUND);
    return { skill, version: row!.version };
  }

  /** A file's skill and version with its manifest and offsets, in one statement. */
  private async fileRow(
    principal: Principal,
    skillId: number,
    version: number | undefined,
  ): Promise<{ skill: SkillEntity; version: VersionFiles; immutable: boolean; admin: boolean }> {
    const immutable = version !== undefined;
    const read = (id: number, v: number | null) => this.bytes.findVersionFiles(id, v);
    if (principal.kind === 'user') {
      return { ...(await this.userRow(principal, skillId, version, read)), immutable, admin: principal.isAdmin };
    }
    const ref = tokenSkillRef(await this.resolution.resolve(principal, principal.taskId), skillId, version);
    const row = ref ? await read(skillId, ref.version) : null;
    if (!row?.version) throw DomainError.notFound(SKILL_NOT_FOUND);
    return { skill: row.skill, version: row.version, immutable, admin: false };
  }

  /** The manifest with SKILL.md, for users and for task tokens (their resolved set only). */
  async manifest(principal: Principal, skillId: number, version: number | undefined): Promise<ManifestDto> {
    const target = await this.target(principal, skillId, version);
    return this.reads.manifestReadable(target.skill, target.version, target.admin);
  }

  /** One file of a version (docs/api.md#single-files), with the same access as the manifest. */
  async file(
    principal: Principal,
    skillId: number,
    path: string,
    version: number | undefined,
    ifNoneMatch?: string,
  ): Promise<SkillFile> {
    const row = await this.fileRow(principal, skillId, version);
    return this.files.openIn(row.skill, row.version, path, ifNoneMatch, row.immutable, row.admin);
  }

  /** One file's bytes (no conditional request), and the version they were read from. */
  async openFile(
    principal: Principal,
    skillId: number,
    path: string,
    version: number | undefined,
  ): Promise<Extract<SkillFile, { notModified: false }> & { version: number }> {
    const row = await this.fileRow(principal, skillId, version);
    const file = await this.files.openIn(row.skill, row.version, path, undefined, row.immutable, row.admin);
    if (file.notModified) throw new Error('a file read without If-None-Match answered 304');
    return { ...file, version: row.version.version };
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
