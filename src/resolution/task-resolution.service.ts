// The one resolver, served: loads a task's facts (two queries after authentication), checks that
// the caller may read the task, and hands everything to resolveTask.
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Principal } from '../auth/principal';
import { ChangeGeneration, GenerationCache } from '../common/cache/change-generation';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../metrics/metrics.service';
import { DomainError } from '../common/errors/domain-error';
import {
  effectiveRole,
  ExplicitSelection,
  parseTaskSelections,
  pinnedVersion,
  plainIdentity,
  Resolution,
  resolveTask,
} from '../resolver';
import { canReadTask } from '../tasks/task-access';
import { TASK_NOT_FOUND } from '../tasks/tasks.service';
import { ResolutionFactsRepository, SkillReach, TaskSelectionFacts } from './resolution-facts.repository';

export interface Message {
  callerUserId: number;
  selections: ExplicitSelection[];
}

/** Every skill the task's selections may reach: names in their scopes, stored refs by id. */
export function reachOf(facts: TaskSelectionFacts, message: Message | null): SkillReach {
  const names: string[] = [];
  const namespaces: string[] = facts.team ? [facts.team.namespace] : [];
  const ids: number[] = [];
  const versions: number[] = [];
  const explicit = (selections: ExplicitSelection[]): void => {
    for (const s of selections) {
      names.push(s.name);
      namespaces.push(s.namespace);
      if (s.version !== undefined) versions.push(s.version);
    }
  };
  for (const ghost of facts.ghosts) {
    names.push(...ghost.skills, ...ghost.preloadSkills);
    for (const ref of [...Object.values(ghost.skillRefs), ...Object.values(ghost.preloadSkillRefs)]) {
      ids.push(ref.skill_id);
      const pinned = pinnedVersion(ref);
      if (pinned !== undefined) versions.push(pinned);
    }
  }
  if (facts.subscription) explicit(facts.subscription.skillRefs);
  const selections = parseTaskSelections(facts.task.labels);
  if (selections.kind === 'refs') explicit(selections.refs);
  if (selections.kind === 'names') names.push(...selections.names);
  if (message) explicit(message.selections);
  return { names, namespaces, ids, versions, personalOwners: Object.keys(facts.identities).map(Number) };
}

/** A fingerprint is valid for one reader of one task: access decides whether it is served at all. */
function readerKey(principal: Principal, taskId: number): string {
  return principal.kind === 'user' ? `u${principal.userId}:${taskId}` : `t${principal.tokenId}:${taskId}`;
}

@Injectable()
export class TaskResolutionService {
  /**
   * The last resolution each reader was given, until the next change: repeated reads (and the
   * 304 path) need no query. Only a reader who passed the access check has an entry. A change to
   * a ghost drops only the entries of tasks whose team points at it.
   */
  private readonly resolutions: GenerationCache<Resolution>;

  constructor(
    private readonly facts: ResolutionFactsRepository,
    private readonly changes: ChangeGeneration,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    this.resolutions = new GenerationCache(changes, config.resolutionCacheEntries);
  }

  /** The fingerprint `principal` was last given for the task, while nothing has changed since. */
  knownFingerprint(principal: Principal, taskId: number): string | undefined {
    const fingerprint = this.resolutions.get(readerKey(principal, taskId))?.fingerprint;
    // A miss here is counted by the resolve() that follows it.
    if (fingerprint !== undefined) this.metrics.resolutionCache(true);
    return fingerprint;
  }

  /** CONTRACT §5.3 (and §5.4 with a message); 404 `Task not found` for whoever may not read it. */
  async resolve(
    principal: Principal,
    taskId: number,
    message: Message | null = null,
    manager?: EntityManager,
  ): Promise<Resolution> {
    // Inside a transaction (manager given) the rows may be uncommitted: neither read nor fill the cache.
    const cacheable = !message && !manager;
    const key = readerKey(principal, taskId);
    const cached = cacheable ? this.resolutions.get(key) : undefined;
    if (cacheable) this.metrics.resolutionCache(cached !== undefined);
    if (cached) return cached;
    const generation = this.changes.current();
    const ghostChangesSeen = this.changes.ghostChangesSeen();
    const { resolution, ghostIds } = await this.compute(principal, taskId, message, manager);
    if (cacheable) this.resolutions.set(key, resolution, generation, { ghostIds, ghostChangesSeen });
    return resolution;
  }

  private async compute(
    principal: Principal,
    taskId: number,
    message: Message | null,
    manager?: EntityManager,
  ): Promise<{ resolution: Resolution; ghostIds: number[] }> {
    const facts = await this.readableFacts(principal, taskId, manager);
    const skills = await this.facts.loadSkills(reachOf(facts, message), manager);
    const resolution = resolveTask({
      taskId: facts.task.id,
      taskCreatorUserId: facts.task.ownerUserId,
      teamId: facts.task.teamId,
      teamNamespace: facts.team?.namespace ?? null,
      ghosts: facts.ghosts,
      subscription: facts.subscription,
      labels: facts.task.labels,
      message,
      identities: facts.identities,
      skills,
    });
    return { resolution, ghostIds: facts.ghostIds };
  }

  /** The task's facts when the principal may read it: a token only its own task, a user per §2. */
  async readableFacts(principal: Principal, taskId: number, manager?: EntityManager): Promise<TaskSelectionFacts> {
    if (principal.kind === 'task_token') {
      const facts = principal.taskId === taskId ? await this.facts.loadTaskSelections(taskId, [], manager) : null;
      if (!facts) throw DomainError.notFound(TASK_NOT_FOUND);
      return facts;
    }
    const facts = await this.facts.loadTaskSelections(taskId, [principal.userId], manager);
    if (!facts) throw DomainError.notFound(TASK_NOT_FOUND);
    const identity = facts.identities[principal.userId] ?? plainIdentity(principal.userId);
    if (!canReadTask(principal, facts.task, effectiveRole(identity, facts.task.namespace))) {
      throw DomainError.notFound(TASK_NOT_FOUND);
    }
    return facts;
  }
}
