// docs/resolution.md#executionrequest: an ExecutionRequest resolves the task with the message as the top source, and
// with `persist` writes the message's selections into the task labels first.
import { Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { canPersistSelections, DEFAULT_NAMESPACE } from '../access';
import { ExplicitSelection, mergeMessageSelections, plainIdentity } from '../resolver';
import { labelProblems, selectionLabels } from '../tasks/task-labels';
import { TasksRepository } from '../tasks/tasks.repository';
import { ExecutionRequestBody, ExecutionRequestDto } from './dto/resolution.dto';
import { toExecutionRequestDto } from './resolution.mapper';
import { ResolutionFactsRepository } from '../selection-facts/resolution-facts.repository';
import { SelectionValidator } from '../selection-facts/selection-validator.service';
import { reachOf } from '../selection-facts/skill-reach';
import { TaskResolutionService } from './task-resolution.service';

@Injectable()
export class ExecutionRequestsService {
  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly facts: ResolutionFactsRepository,
    private readonly selections: SelectionValidator,
    private readonly tasks: TasksRepository,
  ) {}

  async create(caller: UserPrincipal, taskId: number, body: ExecutionRequestBody): Promise<ExecutionRequestDto> {
    const selections: ExplicitSelection[] = (body.additional_skills ?? []).map((s) => ({
      name: s.name,
      namespace: s.namespace,
      is_public: s.is_public,
    }));
    if (body.persist) await this.persist(caller, taskId, selections);
    const message = { callerUserId: caller.userId, selections };
    return toExecutionRequestDto(await this.resolution.resolve(caller, taskId, message));
  }

  /** Creator and admins only; the selections must resolve as the caller; labels change under a row lock. */
  private async persist(caller: UserPrincipal, taskId: number, selections: ExplicitSelection[]): Promise<void> {
    const facts = await this.resolution.readableFacts(caller, taskId);
    if (!canPersistSelections(caller, facts.task)) {
      throw DomainError.forbidden('Only the task creator and admins persist selections');
    }
    await this.selections.requireSelections(selections, caller.userId);
    await this.tasks.withLockedTask(taskId, async (task, tx) => {
      // Re-read under the lock: labels and the team may have changed since the check above.
      const locked = (await this.facts.loadTaskSelections(task.id, [], tx))!;
      const namespace = locked.team?.namespace ?? DEFAULT_NAMESPACE;
      const creator = locked.identities[task.ownerUserId] ?? plainIdentity(task.ownerUserId);
      const catalog = await this.facts.loadCatalog(reachOf(locked, null), tx);
      const merged = mergeMessageSelections(catalog, creator, namespace, task.labels, selections);
      const labels = { ...task.labels, ...selectionLabels(merged.requestedSkillRefs) };
      const problems = labelProblems(labels);
      if (problems.length) throw DomainError.validation(problems);
      await this.tasks.persistExecutionRequest(tx, task, labels, merged.requestedSkillRefs);
    });
  }
}
