// The plain facts of a skill binding, apart from its rules (bindings.ts) so that the resolver's
// facts (resolution.types.ts) can name them without importing the rules.
export const BINDING_EXCEPTION_TYPES = ['mode', 'team'] as const;
export type BindingExceptionType = (typeof BINDING_EXCEPTION_TYPES)[number];

export interface BindingException {
  type: BindingExceptionType;
  value: string;
}

export type BindingTarget = { type: 'user'; userId: number } | { type: 'group'; groupName: string };

export interface BindingFacts {
  id: number;
  skillId: number;
  /** The bound skill's current name. */
  name: string;
  /** The bound skill's scope: `default` for personal and public skills, else its group. */
  namespace: string;
  isPublic: boolean;
  target: BindingTarget;
  preload: boolean;
  exceptions: readonly BindingException[];
}
