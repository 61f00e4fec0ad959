// Save-time checks of skill selections (ghost skills, subscription refs, task skill_selection,
// ExecutionRequest messages), with the resolver's own rules over freshly loaded facts.
import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import {
  ExplicitSelection,
  GhostSkillsInput,
  Identity,
  InvalidName,
  invalidSelections,
  pinnedVersion,
  plainIdentity,
  StoredRef,
  validateGhostSkills,
} from '../resolver';
import { ResolutionFactsRepository } from './resolution-facts.repository';

export function selectionInvalid(invalid: InvalidName[]): DomainError {
  return new DomainError('SKILL_SELECTION_INVALID', 'Some selected skills cannot be used', { invalid });
}

@Injectable()
export class SelectionValidator {
  constructor(private readonly facts: ResolutionFactsRepository) {}

  /**
   * The refs a ghost stores: the client's refs re-checked, every other name looked up acting as
   * the owner in the ghost's namespace; readable by the owner and the saver. Else 400.
   */
  async ghostRefs(
    body: GhostSkillsInput,
    ownerUserId: number,
    saverUserId: number,
    namespace: string,
  ): Promise<{ skillRefs: Record<string, StoredRef>; preloadSkillRefs: Record<string, StoredRef> }> {
    const refs = [...Object.values(body.skill_refs), ...Object.values(body.preload_skill_refs)];
    const [identities, catalog] = await Promise.all([
      this.facts.loadIdentities([ownerUserId, saverUserId]),
      this.facts.loadCatalog({
        names: [...body.skills, ...body.preload_skills],
        personalOwners: [ownerUserId],
        namespaces: [namespace],
        ids: refs.map((r) => r.skill_id),
        versions: refs.flatMap((r) => pinnedVersion(r) ?? []),
      }),
    ]);
    const result = validateGhostSkills({
      body,
      owner: identity(identities, ownerUserId),
      saver: identity(identities, saverUserId),
      namespace,
      catalog,
    });
    if (!result.ok) throw selectionInvalid(result.invalid);
    return { skillRefs: result.skillRefs, preloadSkillRefs: result.preloadSkillRefs };
  }

  /** Every explicit selection must resolve acting as `actorUserId` (and be readable by the saver). */
  async requireSelections(
    selections: ExplicitSelection[],
    actorUserId: number,
    saverUserId = actorUserId,
  ): Promise<void> {
    if (selections.length === 0) return;
    const [identities, catalog] = await Promise.all([
      this.facts.loadIdentities([actorUserId, saverUserId]),
      this.facts.loadCatalog({
        names: selections.map((s) => s.name),
        personalOwners: [actorUserId],
        namespaces: selections.map((s) => s.namespace),
        ids: [],
        versions: selections.flatMap((s) => (s.version === undefined ? [] : [s.version])),
      }),
    ]);
    const invalid = invalidSelections(
      catalog,
      identity(identities, actorUserId),
      selections,
      identity(identities, saverUserId),
    );
    if (invalid.length) throw selectionInvalid(invalid);
  }
}

function identity(identities: Record<number, Identity>, userId: number): Identity {
  return identities[userId] ?? plainIdentity(userId);
}
