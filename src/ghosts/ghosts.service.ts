import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { Page, toPage } from '../common/http/pagination';
import { ScopedAccess } from '../groups/scoped-access.service';
import { ResolutionFactsRepository } from '../selection-facts/resolution-facts.repository';
import { SelectionValidator } from '../selection-facts/selection-validator.service';
import type { GhostSkillsInput, SkillCatalog, SkillRefInput } from '../resolver';
import { GhostBodyDto, GhostDto, GhostListQuery } from './dto/ghost.dto';
import { GhostSkillRefInputDto, SkillRefMap } from './dto/skill-ref-input.dto';
import { GhostEntity } from './ghost.entity';
import { storedRefsReach, toGhostDto } from './ghost.mapper';
import { GhostsRepository } from './ghosts.repository';

export const GHOST_NOT_FOUND = 'Ghost not found';

/** A field sent as null counts as not sent (the validation pipe lets null through optional fields). */
function refInput(ref: GhostSkillRefInputDto): SkillRefInput {
  const input: SkillRefInput = { skill_id: ref.skill_id };
  if (ref.namespace != null) input.namespace = ref.namespace;
  if (ref.is_public != null) input.is_public = ref.is_public;
  if (ref.version != null) input.version = ref.version;
  if (ref.pinned != null) input.pinned = ref.pinned;
  if (ref.tag != null) input.tag = ref.tag;
  return input;
}

function skillsInput(body: GhostBodyDto): GhostSkillsInput {
  const refs = (map: SkillRefMap | null | undefined) =>
    Object.fromEntries([...(map ?? [])].map(([name, ref]) => [name, refInput(ref)]));
  return {
    skills: body.skills ?? [],
    preload_skills: body.preload_skills ?? [],
    skill_refs: refs(body.skill_refs),
    preload_skill_refs: refs(body.preload_skill_refs),
  };
}

@Injectable()
export class GhostsService {
  constructor(
    private readonly ghosts: GhostsRepository,
    private readonly access: ScopedAccess,
    private readonly selections: SelectionValidator,
    private readonly facts: ResolutionFactsRepository,
  ) {}

  async create(caller: UserPrincipal, body: GhostBodyDto): Promise<GhostDto> {
    const namespace = await this.access.creatable(caller, body.namespace ?? undefined);
    const input = skillsInput(body);
    const refs = await this.selections.ghostRefs(input, caller.userId, caller.userId, namespace);
    const ghost = await this.ghosts.insert({
      name: body.name,
      namespace,
      ownerUserId: caller.userId,
      skills: input.skills,
      preloadSkills: input.preload_skills,
      ...refs,
    });
    return this.present(ghost);
  }

  async list(caller: UserPrincipal, query: GhostListQuery): Promise<Page<GhostDto>> {
    const filter = await this.access.listFilter(caller, query);
    const { limit } = filter;
    const rows = await this.ghosts.list(filter);
    const catalog = await this.catalogFor(rows.slice(0, limit));
    return toPage(rows, limit, (ghost) => toGhostDto(ghost, catalog));
  }

  async get(caller: UserPrincipal, id: number): Promise<GhostDto> {
    return this.present(await this.access.readable(caller, await this.ghosts.findActive(id), GHOST_NOT_FOUND));
  }

  /** Replaces the writable body; refs are re-checked acting as the owner, and must be readable by the caller. */
  async replace(caller: UserPrincipal, id: number, body: GhostBodyDto): Promise<GhostDto> {
    const ghost = await this.access.changeable(caller, await this.ghosts.findActive(id), GHOST_NOT_FOUND);
    this.access.sameNamespace(ghost, body.namespace ?? undefined);
    const input = skillsInput(body);
    const refs = await this.selections.ghostRefs(input, ghost.ownerUserId, caller.userId, ghost.namespace);
    const saved = await this.ghosts.replace(ghost, {
      name: body.name,
      skills: input.skills,
      preloadSkills: input.preload_skills,
      ...refs,
    });
    return this.present(saved);
  }

  /** Soft delete; 409 IN_USE while an active bot uses the ghost. */
  async remove(caller: UserPrincipal, id: number): Promise<void> {
    const ghost = await this.access.changeable(caller, await this.ghosts.findActive(id), GHOST_NOT_FOUND);
    const bots = await this.ghosts.deleteUnlessUsedByBots(ghost);
    if (bots.length > 0) {
      throw new DomainError('IN_USE', `The ghost is used by ${bots.length} bot(s)`, { bots });
    }
  }

  private async present(ghost: GhostEntity): Promise<GhostDto> {
    return toGhostDto(ghost, await this.catalogFor([ghost]));
  }

  /** One batch for a whole page: every stored ref's skill with its latest and pinned versions. */
  private catalogFor(ghosts: GhostEntity[]): Promise<SkillCatalog> {
    return this.facts.loadCatalog(storedRefsReach(ghosts));
  }
}
