// The one resolver, served: loads a task's facts (two queries after authentication, at most),
// checks that the caller may read the task, and hands everything to resolveTask.
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Principal } from '../auth/principal';
import { ChangeGeneration, GenerationCache } from '../common/cache/change-generation';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../metrics/metrics.service';
import { DomainError } from '../common/errors/domain-error';
import { effectiveRole, plainIdentity, Resolution, resolveTask, SkillFacts } from '../resolver';
import { canReadTask } from '../tasks/task-access';
import { TASK_NOT_FOUND } from '../tasks/tasks.service';
import { ResolutionFactsRepository, TaskSelectionFacts } from './resolution-facts.repository';
import {
  ghostReach,
  mergeSkills,
  Message,
  reachesNothing,
  reachFilter,
  reachKey,
  taskReach,
  unionReach,
} from './skill-reach';

export type { Message } from './skill-reach';

/** What a team's ghosts reach, loaded once for every task of the team until the next change. */
interface TeamSkills {
  /** reachKey of the ghosts' reach the skills were loaded for. */
  reach: string;
  skills: SkillFacts[];
}

/** When the computation began: what a value computed from it may be cached under. */
interface Started {
  generation: number;
  ghostChangesSeen: number;
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
  /**
   * By team id: the skills its ghosts reach. A task nobody resolved yet then loads only the skills
   * its own selections name (none at all when it has none). Dropped on every change, as the
   * resolutions are, and when one of the team's ghosts changes.
   */
  private readonly teamSkills: GenerationCache<TeamSkills>;

  constructor(
    private readonly facts: ResolutionFactsRepository,
    private readonly changes: ChangeGeneration,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    this.resolutions = new GenerationCache(changes, config.resolutionCacheEntries);
    this.teamSkills = new GenerationCache(changes, config.teamSkillsCacheEntries);
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
    const started: Started = { generation: this.changes.current(), ghostChangesSeen: this.changes.ghostChangesSeen() };
    const { resolution, ghostIds } = await this.compute(principal, taskId, message, started, manager);
    if (cacheable) this.resolutions.set(key, resolution, started.generation, { ghostIds, ...started });
    return resolution;
  }

  private async compute(
    principal: Principal,
    taskId: number,
    message: Message | null,
    started: Started,
    manager?: EntityManager,
  ): Promise<{ resolution: Resolution; ghostIds: number[] }> {
    const facts = await this.readableFacts(principal, taskId, manager);
    const skills = await this.loadSkills(facts, message, started, manager);
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

  /**
   * Every skill the task's selections may reach. The ghosts' part comes from the team's entry when
   * it was loaded for the same reach since the last change; inside a transaction (rows perhaps
   * uncommitted) nothing is read from or kept in it.
   */
  private async loadSkills(
    facts: TaskSelectionFacts,
    message: Message | null,
    started: Started,
    manager?: EntityManager,
  ): Promise<SkillFacts[]> {
    const ghosts = ghostReach(facts);
    const own = taskReach(facts, message);
    if (manager || !facts.team) return this.facts.loadSkills(unionReach(ghosts, own), manager);
    const teamKey = String(facts.team.id);
    const reach = reachKey(ghosts);
    const cached = this.teamSkills.get(teamKey);
    const hit = cached?.reach === reach;
    this.metrics.teamSkillsCache(hit);
    if (hit) return mergeSkills(cached.skills, reachesNothing(own) ? [] : await this.facts.loadSkills(own));
    const skills = await this.facts.loadSkills(unionReach(ghosts, own));
    const team: TeamSkills = { reach, skills: skills.filter(reachFilter(ghosts)) };
    this.teamSkills.set(teamKey, team, started.generation, { ghostIds: facts.ghostIds, ...started });
    return skills;
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
