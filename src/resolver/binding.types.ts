// The plain facts of a skill binding, apart from its rules (bindings.ts) so that the resolver's
// facts (resolution.types.ts) can name them without importing the rules.
export const BINDING_EXCEPTION_TYPES = ['mode', 'team'] as const;
export type BindingExceptionType = (typeof BINDING_EXCEPTION_TYPES)[number];

export interface BindingException {
  type: BindingExceptionType;
  value: string;
}

export type BindingTarget = { type: 'user'; userId: number } | { type: 'group'; groupName: string };

/** The scope rank of a bound skill, as name lookups rank them: personal, group, public. */
export type BoundScope = 'personal' | 'group' | 'public';

export interface BindingFacts {
  id: number;
  skillId: number;
  /** The bound skill's current name. */
  name: string;
  scope: BoundScope;
  target: BindingTarget;
  preload: boolean;
  exceptions: readonly BindingException[];
}
