// Tasks and their tokens. A task is read by its creator, Reporter+ in its (group) namespace and
// admins; a token is not a user: it acts for its own task only, and holds while its minter may
// still read that task.
import { readsGroup, Actor } from './scope-access';
import { GroupRole, hasRole } from './roles';
import { DEFAULT_NAMESPACE } from './namespaces';

export interface TaskScope {
  ownerUserId: number;
  namespace: string;
}

/** The creator, Reporter+ in the task's (group) namespace, admins. */
export function canReadTask(actor: Actor, task: TaskScope, role: GroupRole | null): boolean {
  if (actor.isAdmin || task.ownerUserId === actor.userId) return true;
  return readsGroup(actor, task.namespace, role);
}

/** Revoking a task's tokens: the creator, Maintainer+ in its namespace, admins. */
export function canManageTaskTokens(actor: Actor, task: TaskScope, role: GroupRole | null): boolean {
  if (actor.isAdmin || task.ownerUserId === actor.userId) return true;
  return task.namespace !== DEFAULT_NAMESPACE && hasRole(role, 'Maintainer');
}

/** Storing an ExecutionRequest's selections in the task's labels: its creator and admins. */
export function canPersistSelections(actor: Actor, task: TaskScope): boolean {
  return actor.isAdmin || task.ownerUserId === actor.userId;
}

/** What authentication knows of a presented task token. */
export interface TaskTokenState {
  revoked: boolean;
  expiresAt: number;
  minter: Actor;
  task: TaskScope;
  /** The minter's effective role in the task's namespace. */
  minterRole: GroupRole | null;
}

/** A token holds until it expires or is revoked, and only while its minter may read the task. */
export function taskTokenHolds(token: TaskTokenState, now: number): boolean {
  if (token.revoked || token.expiresAt <= now) return false;
  return canReadTask(token.minter, token.task, token.minterRole);
}

/** A token reads only its own task: any other task id answers as missing. */
export function tokenReadsTask(token: { taskId: number }, taskId: number): boolean {
  return token.taskId === taskId;
}

/** A ref of a task's resolved set, as far as a token's reads are concerned. */
export interface ResolvedRef {
  skill_id: number;
  version: number;
}

/**
 * Which ref of its task's resolved set a token reads for `skillId`: the one at `version`, or, with
 * no version, the preload ref before the plain one (Wegent takes a name's preload ref first and
 * downloads without a version, so the default must be the version it was told to expect).
 * Undefined when the set holds no such ref: the skill answers as missing.
 */
export function tokenSkillRef<R extends ResolvedRef>(
  resolved: { preload_skill_refs: Record<string, R>; skill_refs: Record<string, R> },
  skillId: number,
  version: number | undefined,
): R | undefined {
  const refs = [...Object.values(resolved.preload_skill_refs), ...Object.values(resolved.skill_refs)].filter(
    (ref) => ref.skill_id === skillId,
  );
  return version === undefined ? refs[0] : refs.find((r) => r.version === version);
}
