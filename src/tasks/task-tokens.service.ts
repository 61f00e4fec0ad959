import { Injectable } from '@nestjs/common';
import { canManageTaskTokens } from '../access';
import { UserPrincipal } from '../auth/principal';
import { generateSecret, hashSecret, TASK_TOKEN_PREFIX } from '../auth/secrets';
import { DomainError } from '../common/errors/domain-error';
import { ScopedAccess } from '../groups/scoped-access.service';
import { TaskTokenDto } from './dto/task.dto';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';

export const DEFAULT_TOKEN_TTL_SECONDS = 24 * 60 * 60;

@Injectable()
export class TaskTokensService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly taskReads: TasksService,
    private readonly access: ScopedAccess,
  ) {}

  /** Any user who may read the task mints; the token reads as them while they still may. */
  async mint(caller: UserPrincipal, taskId: number, ttlSeconds = DEFAULT_TOKEN_TTL_SECONDS): Promise<TaskTokenDto> {
    const task = await this.taskReads.readable(caller, taskId);
    const token = generateSecret(TASK_TOKEN_PREFIX);
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    await this.tasks.insertToken(task, {
      minterUserId: caller.userId,
      tokenHash: hashSecret(token),
      expiresAt,
    });
    return { token, expires_at: expiresAt.toISOString() };
  }

  async revokeAll(caller: UserPrincipal, taskId: number): Promise<void> {
    const task = await this.taskReads.readable(caller, taskId);
    const role = await this.access.namespaces.roleIn(caller.userId, task.namespace);
    if (!canManageTaskTokens(caller, task, role)) {
      throw DomainError.forbidden("Revoking a task's tokens needs its creator, a Maintainer or an admin");
    }
    await this.tasks.revokeTokens(task);
  }
}
