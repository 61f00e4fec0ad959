// Who is calling: a user (API key) or a task token, which is not a user and may make only the
// calls of docs/api.md#access for its own task.
export interface UserPrincipal {
  kind: 'user';
  userId: number;
  userName: string;
  isAdmin: boolean;
}

export interface TaskTokenPrincipal {
  kind: 'task_token';
  tokenId: number;
  taskId: number;
  /** The user who minted the token; reads through the token act as them. */
  minterUserId: number;
}

export type Principal = UserPrincipal | TaskTokenPrincipal;
