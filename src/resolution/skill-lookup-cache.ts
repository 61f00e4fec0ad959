// The skill query's answers, kept lookup by lookup until the next change (docs/architecture.md#caching-and-invalidation):
// a task whose selections name skills others looked up already (a catalog's public skills, a
// group's bound ones) is resolved without the skill query, and a task that names some new ones
// queries those alone.
import type { ChangeGeneration } from '../cache/change-generation';
import { GenerationCache } from '../cache/change-generation';
import type { SkillFacts } from '../resolver';
import { answersOf, argumentsFor, lookupKey, lookupsOf, ReachLookup } from '../selection-facts/reach-lookups';
import type { ReachArguments } from '../selection-facts/resolution-facts.repository';

export class SkillLookupCache {
  /** Skill ids by lookup key. */
  private readonly answers: GenerationCache<number[]>;
  /** A skill's facts as the query gives them with no version pinned, by id. */
  private readonly skills: GenerationCache<SkillFacts>;

  constructor(changes: ChangeGeneration, maxEntries: number) {
    this.answers = new GenerationCache(changes, maxEntries, { lazy: true });
    this.skills = new GenerationCache(changes, maxEntries, { lazy: true });
  }

  /**
   * What `query(args)` answers, from memory where every lookup of it is kept, querying only what
   * is not. `generation`: the change generation read before the resolution began. A reach that
   * pins versions is queried whole, and nothing of it is kept (its facts hold extra versions).
   * Returns the skills by id, and whether the query ran.
   */
  async load(
    args: ReachArguments,
    generation: number,
    query: (args: ReachArguments) => Promise<SkillFacts[]>,
  ): Promise<{ skills: SkillFacts[]; queried: boolean }> {
    if (!this.answers.keeps || args.versions.length > 0) return { skills: await query(args), queried: true };
    const found = new Map<number, SkillFacts>();
    const missing: ReachLookup[] = [];
    for (const lookup of lookupsOf(args)) {
      const ids = this.answers.get(lookupKey(lookup));
      const skills = ids?.map((id) => this.skills.get(String(id)));
      if (!skills || skills.some((skill) => skill === undefined)) missing.push(lookup);
      else for (const skill of skills as SkillFacts[]) found.set(skill.id, skill);
    }
    if (missing.length === 0) return { skills: byId(found), queried: false };
    const asked = argumentsFor(missing);
    const rows = await query(asked);
    for (const [key, ids] of answersOf(asked, rows)) this.answers.set(key, ids, generation);
    for (const skill of rows) {
      this.skills.set(String(skill.id), skill, generation);
      found.set(skill.id, skill);
    }
    return { skills: byId(found), queried: true };
  }
}

function byId(found: Map<number, SkillFacts>): SkillFacts[] {
  return [...found.values()].sort((a, b) => a.id - b.id);
}
