// The skill query's answers, kept lookup by lookup until the next change (docs/architecture.md#caching-and-invalidation):
// a task whose selections name skills others looked up already (a catalog's public skills, a
// group's bound ones) is resolved without the skill query, and a task that names some new ones
// queries those alone. The caller says which lookups it needs: the ones its resolver makes.
import type { ChangeGeneration } from '../cache/change-generation';
import { GenerationCache } from '../cache/change-generation';
import type { SkillFacts } from '../resolver';
import { answersOf, argumentsFor, lookupKey, ReachLookup } from '../selection-facts/reach-lookups';
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
   * The skills `lookups` find, from memory where each is kept, querying only the others (and
   * keeping what they find). `whole`: the reach the lookups come from, queried as it is when it
   * pins versions (then nothing is kept: its facts hold the pinned versions) or when nothing may be
   * kept. `generation`: the change generation read before the resolution began. Returns the
   * skills by id, and whether a query ran.
   */
  async load(
    lookups: readonly ReachLookup[],
    whole: ReachArguments,
    generation: number,
    query: (args: ReachArguments) => Promise<SkillFacts[]>,
  ): Promise<{ skills: SkillFacts[]; queried: boolean }> {
    if (!this.answers.keeps || whole.versions.length > 0) return { skills: await query(whole), queried: true };
    const found = new Map<number, SkillFacts>();
    const missing: ReachLookup[] = [];
    for (const lookup of lookups) {
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
