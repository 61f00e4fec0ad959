// The access table of CONTRACT §2 for skills, ghosts, bots, teams and subscriptions, as plain
// rules over the caller's effective role in the thing's namespace.
import { DEFAULT_NAMESPACE, GroupRole, hasRole } from './group-role';

export interface Actor {
  userId: number;
  isAdmin: boolean;
}

/** A thing that lives in a scope: personal (`default`), a group, or public (skills only). */
export interface Scoped {
  namespace: string;
  /** The owner of a personal thing, the creator of a group thing, null for public skills. */
  ownerUserId: number | null;
  isPublic?: boolean;
}

export function canRead(actor: Actor, thing: Scoped, role: GroupRole | null): boolean {
  if (actor.isAdmin || thing.isPublic) return true;
  if (thing.namespace === DEFAULT_NAMESPACE) return thing.ownerUserId === actor.userId;
  return hasRole(role, 'Reporter');
}

export function canChange(actor: Actor, thing: Scoped, role: GroupRole | null): boolean {
  if (actor.isAdmin) return true;
  if (thing.isPublic) return false;
  if (thing.namespace === DEFAULT_NAMESPACE) return thing.ownerUserId === actor.userId;
  return hasRole(role, 'Maintainer') || (thing.ownerUserId === actor.userId && hasRole(role, 'Developer'));
}

export type CreateDecision = 'ok' | 'not_found' | 'forbidden';

/** Creating in a group needs Developer+ (no role: 404, too low: 403); public things need an admin. */
export function canCreate(actor: Actor, namespace: string, role: GroupRole | null, isPublic = false): CreateDecision {
  if (isPublic) return actor.isAdmin ? 'ok' : 'forbidden';
  if (namespace === DEFAULT_NAMESPACE || actor.isAdmin) return 'ok';
  if (!role) return 'not_found';
  return hasRole(role, 'Developer') ? 'ok' : 'forbidden';
}
