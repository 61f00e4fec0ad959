import { Injectable } from '@nestjs/common';
import { Actor } from '../access';
import { bytesGone } from '../resolver';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { DEFAULT_LIMIT, Page, toPage } from '../common/http/pagination';
import { NamespaceAccess } from '../groups/namespace-access.service';
import { ManifestDto, SkillDto, SkillListQuery, VersionDto } from './dto/skill.dto';
import { SkillReaders } from './skill-readers';
import { SkillVersionEntity } from './skill-version.entity';
import { SkillEntity } from './skill.entity';
import { toManifestDto, toSkillDto, toVersionDto } from './skill.mapper';
import { SkillsRepository } from './skills.repository';

const VERSION_NOT_FOUND = 'Version not found';

type VersionState = Pick<SkillVersionEntity, 'version' | 'status' | 'bytesPurgedAt'>;

/** A revoked version is gone for everyone but admins (docs/resolution.md#version-lifecycle). */
function requireNotRevoked(skill: SkillEntity, v: Pick<VersionState, 'version' | 'status'>, admin: boolean): void {
  if (bytesGone(v.status, admin)) throw DomainError.versionGone(`Version ${v.version} of ${skill.name} is revoked`);
}

/**
 * The bytes of a revoked version are gone for everyone but admins, and for admins too once purged
 * (docs/storage.md#purge); its manifest stays as the record.
 */
export function requireBytes(skill: SkillEntity, v: VersionState, admin: boolean): void {
  requireNotRevoked(skill, v, admin);
  if (v.bytesPurgedAt) throw DomainError.versionGone(`Version ${v.version} of ${skill.name} is revoked and purged`);
}

@Injectable()
export class SkillsReadService {
  constructor(
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
    private readonly access: NamespaceAccess,
  ) {}

  async list(caller: UserPrincipal, query: SkillListQuery): Promise<Page<SkillDto>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const rows = await this.skills.list({
      readerUserId: caller.userId,
      readableGroups: await this.access.readableGroups(caller),
      namespace: query.namespace,
      isPublic: query.is_public === undefined ? undefined : query.is_public === 'true',
      name: query.name,
      q: query.q,
      afterId: query.cursor,
      limit,
    });
    return toPage(
      rows.map((r) => ({ ...r, id: r.skill.id })),
      limit,
      (r) => toSkillDto(r.skill, r.latest, r.tags),
    );
  }

  async get(caller: Actor, id: number): Promise<SkillDto> {
    const found = await this.skills.findWithLatest(id);
    const skill = await this.readers.readable(caller, found?.skill ?? null);
    return toSkillDto(skill, found!.latest, found!.tags);
  }

  async versions(
    caller: Actor,
    id: number,
    before: number | undefined,
    limit = DEFAULT_LIMIT,
  ): Promise<Page<VersionDto>> {
    const skill = await this.readers.readable(caller, await this.skills.findById(id));
    const rows = await this.skills.listVersions(skill.id, before, limit);
    const items = rows.slice(0, limit);
    return {
      items: items.map(toVersionDto),
      next_cursor: rows.length > limit ? String(items[items.length - 1].version) : null,
    };
  }

  async manifest(caller: Actor, id: number, version?: number): Promise<ManifestDto> {
    const skill = await this.readers.readable(caller, await this.skills.findById(id));
    return this.manifestReadable(skill, version ?? (await this.skills.latestVersionOf(skill)), caller.isAdmin);
  }

  /**
   * For callers whose access was decided elsewhere (task tokens); with the SKILL.md text. A revoked
   * version is gone (410) but to admins.
   */
  async manifestReadable(skill: SkillEntity, version: number, admin = false): Promise<ManifestDto> {
    const v = await this.skills.findVersionWithSkillMd(skill.id, version);
    if (!v) throw DomainError.notFound(VERSION_NOT_FOUND);
    requireNotRevoked(skill, v, admin);
    return toManifestDto(skill, v);
  }
}
