// Indexed lookups over the loaded skill rows, deleted ones included (they answer DELETED).
import { DEFAULT_NAMESPACE } from '../access';
import { SkillFacts } from './resolution.types';

/** The one scope a skill (or an explicit selection) lives in. */
export type SkillScope =
  { kind: 'personal'; ownerUserId: number | null } | { kind: 'group'; namespace: string } | { kind: 'public' };

export function scopeOf(skill: SkillFacts): SkillScope {
  if (skill.isPublic) return { kind: 'public' };
  if (skill.namespace === DEFAULT_NAMESPACE) return { kind: 'personal', ownerUserId: skill.ownerUserId };
  return { kind: 'group', namespace: skill.namespace };
}

/** One key per scope and name, never shared by two: only the name, last, is free text. */
function scopeKey(scope: SkillScope, name: string): string {
  switch (scope.kind) {
    case 'personal':
      return `u${scope.ownerUserId}:${name}`;
    case 'group':
      // The length marks where the namespace ends, whatever either one holds.
      return `g${scope.namespace.length}:${scope.namespace}:${name}`;
    case 'public':
      return `p:${name}`;
  }
}

export class SkillCatalog {
  private readonly byIdIndex = new Map<number, SkillFacts>();
  private readonly activeIndex = new Map<string, SkillFacts>();
  private readonly deletedKeys = new Set<string>();

  constructor(skills: readonly SkillFacts[]) {
    for (const skill of skills) {
      this.byIdIndex.set(skill.id, skill);
      const key = scopeKey(scopeOf(skill), skill.name);
      if (skill.deleted) {
        // Soft delete frees the name, so several deleted rows may share a scope and name.
        this.deletedKeys.add(key);
        continue;
      }
      // The database allows one active row per scope and name; should two ever arrive, the oldest
      // (lowest id) wins whatever the load order, so answers stay deterministic.
      const current = this.activeIndex.get(key);
      if (!current || skill.id < current.id) this.activeIndex.set(key, skill);
    }
  }

  byId(id: number): SkillFacts | undefined {
    return this.byIdIndex.get(id);
  }

  activeIn(scope: SkillScope, name: string): SkillFacts | undefined {
    return this.activeIndex.get(scopeKey(scope, name));
  }

  activePersonal(ownerUserId: number, name: string): SkillFacts | undefined {
    return this.activeIn({ kind: 'personal', ownerUserId }, name);
  }

  activeInGroup(namespace: string, name: string): SkillFacts | undefined {
    return this.activeIn({ kind: 'group', namespace }, name);
  }

  activePublic(name: string): SkillFacts | undefined {
    return this.activeIn({ kind: 'public' }, name);
  }

  /** True when the scope has no active skill of that name but at least one deleted one. */
  holdsOnlyDeleted(scope: SkillScope, name: string): boolean {
    const key = scopeKey(scope, name);
    return !this.activeIndex.has(key) && this.deletedKeys.has(key);
  }
}
