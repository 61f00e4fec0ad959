// Who may read, create, change and delete a thing that lives in a scope (skills, ghosts, bots,
// teams, subscriptions): plain rules over the caller's effective role in the thing's namespace.
//
//   action          | personal (`default`)   | group namespace                       | public skill
//   read            | owner                  | Reporter+                             | every caller
//   create          | anyone, for themselves | Developer+ (no role 404, too low 403) | admins
//   change / delete | owner                  | Maintainer+, or its creator while Developer+ | admins
//
// Admins read and change everything that is not deleted.
import { DEFAULT_NAMESPACE } from './namespaces';
import { GroupRole, hasRole } from './roles';

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

/** Reporter+ in a group namespace, or an admin: may read the group's things. Never true in `default`. */
export function readsGroup(actor: Actor, namespace: string, role: GroupRole | null): boolean {
  if (namespace === DEFAULT_NAMESPACE) return false;
  return actor.isAdmin || hasRole(role, 'Reporter');
}

/** Says nothing about deletion: see canReadDeleted. */
export function canRead(actor: Actor, thing: Scoped, role: GroupRole | null): boolean {
  if (actor.isAdmin || thing.isPublic) return true;
  if (thing.namespace === DEFAULT_NAMESPACE) return thing.ownerUserId === actor.userId;
  return readsGroup(actor, thing.namespace, role);
}

/** Changing and deleting, and adding a version to a skill (a new version is a change). */
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

/** Skills keep their versions after a delete; ghosts, bots, teams and subscriptions do not. */
export type ScopedKind = 'skill' | 'resource';

/**
 * A deleted thing reads as missing, except that admins still read a deleted skill (its versions
 * stay downloadable by them). Nothing deleted is ever changed.
 */
export function canReadDeleted(actor: Actor, kind: ScopedKind): boolean {
  return kind === 'skill' && actor.isAdmin;
}
