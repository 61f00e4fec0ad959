// The version lifecycle's routes (docs/resolution.md#version-lifecycle): who may act, which inputs
// are refused before any row is read; the repository writes under the skill's lock.
import { Inject, Injectable } from '@nestjs/common';
import { Actor } from '../access';
import { DomainError } from '../common/errors/domain-error';
import { tagNameProblem } from '../resolver';
import { TagDto, TagListDto, UpdateVersionStatusDto } from './dto/skill-lifecycle.dto';
import { VersionDto } from './dto/skill.dto';
import { BLOB_STORE, BlobStore } from '../storage/blob-store';
import { SkillBytesRepository } from './skill-bytes.repository';
import { SkillLifecycleRepository } from './skill-lifecycle.repository';
import { SkillReaders } from './skill-readers';
import { toVersionDto } from './skill.mapper';
import { SkillsRepository } from './skills.repository';

@Injectable()
export class SkillLifecycleService {
  constructor(
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
    private readonly lifecycle: SkillLifecycleRepository,
    private readonly bytes: SkillBytesRepository,
    @Inject(BLOB_STORE) private readonly store: BlobStore,
  ) {}

  /**
   * Removes a revoked version's bytes from the store unless another version keeps them
   * (docs/storage.md#purge); from then on its downloads and files are 410 for admins too, and its
   * manifest stays as the record. Admins only (404 first for a skill the caller may not read).
   */
  async purge(caller: Actor, id: number, version: number): Promise<void> {
    const skill = await this.readers.readable(caller, await this.skills.findById(id));
    if (!caller.isAdmin) throw DomainError.forbidden("Only admins purge a version's bytes");
    const purged = await this.bytes.markPurged(skill, version);
    if (!purged.shared) await this.bytes.deleteIfUnreferenced(purged.contentHash, this.store);
  }

  async setStatus(caller: Actor, id: number, version: number, body: UpdateVersionStatusDto): Promise<VersionDto> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(id));
    return toVersionDto(await this.lifecycle.setStatus(skill, version, body.status, body.message ?? null));
  }

  async putTag(caller: Actor, id: number, tag: string, version: number): Promise<TagDto> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(id));
    checkTagName(tag);
    return this.lifecycle.putTag(skill, tag, version);
  }

  async deleteTag(caller: Actor, id: number, tag: string): Promise<void> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(id));
    checkTagName(tag);
    await this.lifecycle.deleteTag(skill, tag);
  }

  async listTags(caller: Actor, id: number): Promise<TagListDto> {
    const skill = await this.readers.readable(caller, await this.skills.findById(id));
    return { items: await this.lifecycle.listTags(skill.id) };
  }
}

function checkTagName(tag: string): void {
  const problem = tagNameProblem(tag);
  if (problem) throw DomainError.validation([problem]);
}
