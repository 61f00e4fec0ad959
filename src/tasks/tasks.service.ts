import { Injectable } from '@nestjs/common';
import { canReadTask, tokenReadsTask } from '../access';
import { Principal, UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { Page, toPage } from '../common/http/pagination';
import { ScopedAccess } from '../groups/scoped-access.service';
import { NewTasks } from '../selection-facts/new-tasks';
import { SelectionValidator } from '../selection-facts/selection-validator.service';
import { CreateTaskDto, ExecutionCreatedDto, TaskDto, TaskListQuery } from './dto/task.dto';
import { labelProblems, selectionLabels } from './task-labels';
import { TaskEntity } from './task.entity';
import { toTaskDto } from './task.mapper';
import { TasksRepository } from './tasks.repository';

export const TASK_NOT_FOUND = 'Task not found';

@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly access: ScopedAccess,
    private readonly selections: SelectionValidator,
    private readonly newTasks: NewTasks,
  ) {}

  async create(caller: UserPrincipal, body: CreateTaskDto): Promise<TaskDto> {
    const labels = { ...(body.labels ?? {}) };
    const problems = labelProblems(labels);
    if (problems.length) throw DomainError.validation(problems);
    const team = await this.access.readable(caller, await this.tasks.findActiveTeam(body.team_id), 'Team not found');
    if (body.skill_selection) {
      await this.selections.requireSelections(body.skill_selection, caller.userId);
      Object.assign(labels, selectionLabels(body.skill_selection));
      const sized = labelProblems(labels);
      if (sized.length) throw DomainError.validation(sized);
    }
    const generation = this.newTasks.generation();
    const task = await this.tasks.create({
      teamId: team.id,
      ownerUserId: caller.userId,
      namespace: team.namespace,
      title: body.title ?? null,
      labels,
    });
    const facts = { id: task.id, teamId: team.id, ownerUserId: caller.userId, namespace: team.namespace, labels };
    this.newTasks.created({ task: facts, team: { id: team.id, namespace: team.namespace } }, generation);
    return toTaskDto(task);
  }

  /** A task and its background execution, owned by the caller (who must read the subscription). */
  async execute(caller: UserPrincipal, subscriptionId: number): Promise<ExecutionCreatedDto> {
    const subscription = await this.access.readable(
      caller,
      await this.tasks.findActiveSubscription(subscriptionId),
      'Subscription not found',
    );
    const team = await this.tasks.findTeamIncludingDeleted(subscription.teamId);
    const { task, executionId } = await this.tasks.createForExecution(
      {
        teamId: subscription.teamId,
        ownerUserId: caller.userId,
        namespace: team?.namespace ?? subscription.namespace,
        title: subscription.name,
        labels: {},
      },
      subscription.id,
    );
    return { task_id: task.id, execution_id: executionId };
  }

  async list(caller: UserPrincipal, query: TaskListQuery): Promise<Page<TaskDto>> {
    const filter = await this.access.listFilter(caller, query);
    const { limit } = filter;
    const rows = await this.tasks.list(filter);
    return toPage(rows, limit, toTaskDto);
  }

  async get(principal: Principal, id: number): Promise<TaskDto> {
    return toTaskDto(await this.readable(principal, id));
  }

  /** The task when the caller may read it (a token reads only its own task); else 404. */
  async readable(principal: Principal, id: number): Promise<TaskEntity> {
    if (principal.kind === 'task_token') {
      const task = tokenReadsTask(principal, id) ? await this.tasks.findById(id) : null;
      if (!task) throw DomainError.notFound(TASK_NOT_FOUND);
      return task;
    }
    const task = await this.tasks.findById(id);
    if (!task) throw DomainError.notFound(TASK_NOT_FOUND);
    const role = await this.access.namespaces.roleIn(principal.userId, task.namespace);
    if (!canReadTask(principal, task, role)) throw DomainError.notFound(TASK_NOT_FOUND);
    return task;
  }
}
