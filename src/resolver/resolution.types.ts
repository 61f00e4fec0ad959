// The plain facts the resolver decides over, and what it answers. No Nest, TypeORM or HTTP here:
// the service loads these facts in a constant number of queries and hands them over.
import type { GroupRole } from '../access';
import type { Requires } from '../policy';
import type { BindingFacts } from './binding.types';
import type { VersionStatus } from './lifecycle';

/** Where a selection came from, lowest precedence first. */
export type SelectionSource = 'binding' | 'ghost' | 'subscription' | 'task' | 'message';

export type UnresolvedReason =
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'DELETED'
  | 'NAME_MISMATCH'
  | 'VERSION_NOT_FOUND'
  // docs/resolution.md#version-lifecycle
  | 'REVOKED'
  | 'NO_ACTIVE_VERSION'
  | 'TAG_NOT_FOUND';

/** A user whose identity a selection acts with (ghost owner, subscription owner, task creator, caller). */
export interface Identity {
  userId: number;
  isAdmin: boolean;
  /** Direct memberships by group name; a role in a parent group holds in its children. */
  directRoles: Record<string, GroupRole>;
}

export interface VersionFacts {
  version: number;
  contentHash: string;
  /** The version's tool policy (docs/packages.md#tool-policy-fields): `allowed-tools` entries, null when absent. */
  allowedTools: string[] | null;
  requires: Requires;
  status: VersionStatus;
}

/** A skill row, deleted ones included (they answer DELETED). */
export interface SkillFacts {
  id: number;
  name: string;
  /** `default` for personal and public skills, else the group name. */
  namespace: string;
  isPublic: boolean;
  /** The owner of a personal skill; null for group and public skills. */
  ownerUserId: number | null;
  deleted: boolean;
  /** The newest active or deprecated version; null when every version is yanked or revoked. */
  latest: VersionFacts | null;
  /** Versions by number: at least the latest, every tagged one and every version pinned by a loaded ref. */
  versions: Record<number, VersionFacts>;
  /** The skill's tags: version by tag name. */
  tags: Record<string, number>;
}

/** A stored ghost ref: a skill id, pinned to `version` when `pinned`, or following `tag`. */
export interface StoredRef {
  skill_id: number;
  version?: number;
  pinned?: boolean;
  tag?: string;
}

/** An explicit selection: exactly one scope, no fallback to another. */
export interface ExplicitSelection {
  name: string;
  namespace: string;
  is_public: boolean;
  /** Subscriptions may pin a version, or follow a tag (never both). */
  version?: number;
  tag?: string;
  /** Stored data that names a skill but cannot select one (a bad shape): resolves to NOT_FOUND. */
  malformed?: true;
}

export interface GhostFacts {
  ownerUserId: number;
  skills: string[];
  preloadSkills: string[];
  skillRefs: Record<string, StoredRef>;
  preloadSkillRefs: Record<string, StoredRef>;
}

export interface ResolutionFacts {
  taskId: number;
  taskCreatorUserId: number;
  /** The task's team id, kept even when the team is gone. */
  teamId: number;
  /** The team's namespace; null when the team is gone (lookups then use `default`). */
  teamNamespace: string | null;
  /** The task's own namespace, kept when its team is gone: whose readers a binding must suit. */
  taskNamespace: string;
  /** Ghosts of the team's bots, in member order (empty when the team is gone). */
  ghosts: GhostFacts[];
  /** The subscription of the task's latest background execution. */
  subscription: { ownerUserId: number; skillRefs: ExplicitSelection[] } | null;
  /** The task labels (`requestedSkillRefs` and `additionalSkills` are JSON text). */
  labels: Record<string, string>;
  /**
   * The skill bindings of the task's creator and of the groups of the team's lineage (skills not
   * deleted), the lowest source; which of them apply is decided by the resolver. Absent: none.
   */
  bindings?: readonly BindingFacts[];
  /** The message of an ExecutionRequest: the top source, acting as the caller. */
  message: { callerUserId: number; selections: ExplicitSelection[] } | null;
  /** Every user named above. */
  identities: Record<number, Identity>;
  /** Every skill any selection above may reach: by name in the relevant scopes, and by ref id. */
  skills: SkillFacts[];
}

/** The ref emitted for a resolved name. */
export interface SkillRef {
  skill_id: number;
  namespace: string;
  is_public: boolean;
  version: number;
  content_hash: string;
  pinned: boolean;
  /** The tag the ref followed, null when it followed none. */
  tag: string | null;
  status: VersionStatus;
  /** The policy of that version (docs/packages.md#tool-policy-fields), so part of the fingerprint. */
  allowed_tools: string[] | null;
  requires: Requires;
}

export interface Unresolved {
  name: string;
  source: SelectionSource;
  reason: UnresolvedReason;
}

/** docs/resolution.md#output, the fingerprint aside. */
export interface Resolution {
  task_id: number;
  team_id: number;
  team_namespace: string;
  skills: string[];
  preload_skills: string[];
  skill_refs: Record<string, SkillRef>;
  preload_skill_refs: Record<string, SkillRef>;
  unresolved: Unresolved[];
  fingerprint: string;
  /** ExecutionRequest: task selections in label order, then the message's, each name once. */
  user_selected_skills: string[];
}

/** The outcome of turning one selection into a ref. */
export type RefOutcome = { ok: true; ref: SkillRef; skill: SkillFacts } | { ok: false; reason: UnresolvedReason };
