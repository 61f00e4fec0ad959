// The access rules over the resolver's own facts: an Identity carries its direct roles, from which
// its role in any namespace follows; the rules themselves are those of src/access.
import { canRead as canReadScoped, effectiveRole, readsGroup } from '../access';
import { Identity, SkillFacts } from './resolution.types';

/** Reporter+ in a group namespace; admins count as Reporter+ everywhere. Never true for `default`. */
export function isReporterIn(identity: Identity, namespace: string): boolean {
  return readsGroup(identity, namespace, effectiveRole(identity.directRoles, namespace));
}

/** Read access. Says nothing about deletion: callers check that first. */
export function canRead(identity: Identity, skill: SkillFacts): boolean {
  return canReadScoped(identity, skill, effectiveRole(identity.directRoles, skill.namespace));
}

/** The identity of a user the facts do not describe: a plain user without roles. */
export function plainIdentity(userId: number): Identity {
  return { userId, isAdmin: false, directRoles: {} };
}
