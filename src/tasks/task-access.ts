// Who may read a task and manage its tokens (CONTRACT §2 Tasks), as plain rules.
import { DEFAULT_NAMESPACE, GroupRole, hasRole } from '../groups/group-role';
import { Actor } from '../groups/scope-access';

export interface TaskScope {
  ownerUserId: number;
  namespace: string;
}

/** The creator, Reporter+ in the task's (group) namespace, admins. */
export function canReadTask(actor: Actor, task: TaskScope, role: GroupRole | null): boolean {
  if (actor.isAdmin || task.ownerUserId === actor.userId) return true;
  return task.namespace !== DEFAULT_NAMESPACE && hasRole(role, 'Reporter');
}

/** Revoking a task's tokens: the creator, Maintainer+ in its namespace, admins. */
export function canManageTaskTokens(actor: Actor, task: TaskScope, role: GroupRole | null): boolean {
  if (actor.isAdmin || task.ownerUserId === actor.userId) return true;
  return task.namespace !== DEFAULT_NAMESPACE && hasRole(role, 'Maintainer');
}
