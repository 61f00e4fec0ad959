// The one resolver, served: loads a task's facts (two queries after authentication, at most),
// checks that the caller may read the task, and hands everything to resolveTask.
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Principal, UserPrincipal } from '../auth/principal';
import { BindingScope, ChangeGeneration, GenerationCache } from '../cache/change-generation';
import { InFlight } from '../cache/in-flight';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../common/metrics/metrics.service';
import { DomainError } from '../common/errors/domain-error';
import { canReadTask, effectiveRole, tokenReadsTask } from '../access';
import {
  BindingFacts,
  decideGhosts,
  GhostDecisions,
  GhostFacts,
  Identity,
  plainIdentity,
  Resolution,
  resolveTask,
  SkillFacts,
} from '../resolver';
import { TASK_NOT_FOUND } from '../tasks/tasks.service';
import {
  KnownFacts,
  NOTHING_KNOWN,
  reachArguments,
  ResolutionFactsRepository,
  SkillReach,
  TaskFactsRead,
  TaskSelectionFacts,
} from '../selection-facts/resolution-facts.repository';
import { SkillLookupCache } from './skill-lookup-cache';
import { NewTasks } from '../selection-facts/new-tasks';
import { lookupsOf, ReachLookup } from '../selection-facts/reach-lookups';
import {
  ghostReach,
  Message,
  reachesNothing,
  reachFilter,
  taskLookups,
  taskReach,
  unionReach,
} from '../selection-facts/skill-reach';

export type { Message } from '../selection-facts/skill-reach';

/** What a team's ghosts give each task of the team: loaded once, kept until the next change. */
interface TeamFacts {
  ghosts: GhostFacts[];
  ghostIds: number[];
  /** The ghosts' owners. */
  identities: Record<number, Identity>;
  /** What the ghosts decide over the skills they reach: the same for every task of the team. */
  decisions: GhostDecisions;
  /** The bindings of the groups of the team's lineage (whether they apply depends on the creator). */
  groupBindings: BindingFacts[];
}

/** What a task creator brings to each of their tasks: kept until the next change to it. */
interface CreatorFacts {
  identity: Identity;
  /** The creator's own bindings. */
  bindings: BindingFacts[];
}

/** How many teams (the most recently used) the facts query is told to leave the ghosts of. */
const KNOWN_TEAMS_SENT = 256;

/** 404 `Task not found` unless the user, whose identity is `identity`, may read the task (docs/api.md#access). */
function requireReadable(principal: UserPrincipal, task: TaskSelectionFacts['task'], identity: Identity): void {
  if (!canReadTask(principal, task, effectiveRole(identity.directRoles, task.namespace))) {
    throw DomainError.notFound(TASK_NOT_FOUND);
  }
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
   * a ghost drops only the entries of tasks whose team points at it; a change to skill bindings
   * only those of the user's tasks, or of the tasks of the group's and its children's teams.
   */
  private readonly resolutions: GenerationCache<Resolution>;
  /**
   * By team id: its ghosts, their owners and what the ghosts decide. A task nobody resolved yet
   * then reads its own row without them and loads only the skills its own selections name (none
   * at all when it has none). Dropped on every change, as the resolutions are, and when one of
   * the team's ghosts changes.
   */
  private readonly teams: GenerationCache<TeamFacts>;
  /**
   * By user id: a task creator's identity and own bindings. A task nobody resolved yet by a known
   * creator then reads neither. Dropped on every change, and when the user's bindings change.
   */
  private readonly creators: GenerationCache<CreatorFacts>;
  /** The skill query's answers, lookup by lookup, until the next change. */
  private readonly lookups: SkillLookupCache;
  /**
   * Resolutions being computed, by reader key: a request that finds one begun with nothing
   * changed since waits for it instead of computing it again (what the cache would serve it a
   * moment later), so a burst of requests for one task costs one resolution.
   */
  private readonly computing = new InFlight<Resolution, Started>();

  constructor(
    private readonly facts: ResolutionFactsRepository,
    private readonly newTasks: NewTasks,
    private readonly changes: ChangeGeneration,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    // Read on every request for a task, the 304s first: hits mostly leave the entry where it is.
    this.resolutions = new GenerationCache(changes, config.resolutionCacheEntries, { lazy: true });
    this.teams = new GenerationCache(changes, config.teamSkillsCacheEntries);
    this.creators = new GenerationCache(changes, config.creatorCacheEntries);
    this.lookups = new SkillLookupCache(changes, config.skillLookupCacheEntries);
  }

  /** The fingerprint `principal` was last given for the task, while nothing has changed since. */
  knownFingerprint(principal: Principal, taskId: number): string | undefined {
    const fingerprint = this.resolutions.get(readerKey(principal, taskId))?.fingerprint;
    // A miss here is counted by the resolve() that follows it.
    if (fingerprint !== undefined) this.metrics.resolutionCache(true);
    return fingerprint;
  }

  /** docs/resolution.md#output (and docs/resolution.md#executionrequest with a message); 404 `Task not found` for whoever may not read it. */
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
    if (!cacheable) return (await this.compute(principal, taskId, message, started, manager)).resolution;
    const current = (begun: Started): boolean =>
      this.changes.isCurrent(begun.generation) && begun.ghostChangesSeen === started.ghostChangesSeen;
    return this.computing.run(key, started, current, async () => {
      const { resolution, ghostIds, bindings } = await this.compute(principal, taskId, message, started);
      this.resolutions.set(key, resolution, started.generation, { ghostIds, ...started, bindings });
      return resolution;
    });
  }

  private async compute(
    principal: Principal,
    taskId: number,
    message: Message | null,
    started: Started,
    manager?: EntityManager,
  ): Promise<{ resolution: Resolution; ghostIds: number[]; bindings: BindingScope }> {
    const { facts, team: known } = await this.factsWithTeam(principal, taskId, started, manager);
    const { skills, team } = await this.loadSkills(facts, known, message, started, manager);
    const resolution = resolveTask(
      {
        taskId: facts.task.id,
        taskCreatorUserId: facts.task.ownerUserId,
        teamId: facts.task.teamId,
        teamNamespace: facts.team?.namespace ?? null,
        taskNamespace: facts.task.namespace,
        ghosts: facts.ghosts,
        subscription: facts.subscription,
        labels: facts.task.labels,
        bindings: facts.bindings,
        message,
        identities: facts.identities,
        skills,
      },
      team?.decisions,
    );
    const bindings = { creatorUserId: facts.task.ownerUserId, teamNamespace: facts.team?.namespace ?? null };
    return { resolution, ghostIds: facts.ghostIds, bindings };
  }

  /**
   * The task's facts, with its team's ghosts and lineage's bindings from the team's entry and its
   * creator's identity and bindings from theirs, when there are. Inside a transaction (rows perhaps
   * uncommitted) nothing is read from or kept in the entries.
   */
  private async factsWithTeam(
    principal: Principal,
    taskId: number,
    started: Started,
    manager?: EntityManager,
  ): Promise<{ facts: TaskSelectionFacts; team?: TeamFacts }> {
    if (manager) return { facts: await this.readableFacts(principal, taskId, manager) };
    const created = this.createdHere(principal, taskId);
    if (created) return created;
    const known = { teams: this.teams.recentKeys(KNOWN_TEAMS_SENT).map(Number), users: this.keptReader(principal) };
    const read = await this.readableFacts(principal, taskId, undefined, known);
    this.keepCreator(read, known, started);
    if (!read.team) return { facts: read };
    const team = read.teamKnown ? this.teams.get(String(read.team.id)) : undefined;
    this.metrics.teamSkillsCache(team !== undefined);
    if (!team) {
      // Dropped since the list was made (a change, or pushed out by others): read again, in full.
      return { facts: read.teamKnown ? await this.readableFacts(principal, taskId) : read };
    }
    const identities = { ...team.identities, ...read.identities };
    const bindings = [...read.bindings, ...team.groupBindings];
    return { facts: { ...read, ghosts: team.ghosts, ghostIds: team.ghostIds, identities, bindings }, team };
  }

  /**
   * The facts of a task created here, when its team's entry, its creator's and the reader's are
   * kept: nothing to read. Undefined when one is missing; 404 when the reader may not read it.
   */
  private createdHere(
    principal: Principal,
    taskId: number,
  ): { facts: TaskSelectionFacts; team: TeamFacts } | undefined {
    const entry = this.newTasks.get(taskId);
    const team = entry && this.teams.get(String(entry.team.id));
    const creator = entry && this.creators.get(String(entry.task.ownerUserId));
    if (!entry || !team || !creator) return undefined;
    const { task } = entry;
    const identities = { ...team.identities, [task.ownerUserId]: creator.identity };
    if (principal.kind === 'user') {
      const reader = principal.userId === task.ownerUserId ? creator : this.creators.get(String(principal.userId));
      if (!reader) return undefined;
      identities[principal.userId] = reader.identity;
      requireReadable(principal, task, reader.identity);
    } else if (!tokenReadsTask(principal, taskId)) {
      throw DomainError.notFound(TASK_NOT_FOUND);
    }
    this.metrics.teamSkillsCache(true);
    const facts: TaskSelectionFacts = {
      task,
      team: entry.team,
      ghosts: team.ghosts,
      ghostIds: team.ghostIds,
      subscription: null,
      identities,
      bindings: [...creator.bindings, ...team.groupBindings],
    };
    return { facts, team };
  }

  /**
   * The creators the facts query may leave out: the reader's user (a token's minter) when kept,
   * most often the task's creator. Only that one: listing the most recent would walk the whole
   * cache on every read.
   */
  private keptReader(principal: Principal): number[] {
    const reader = principal.kind === 'user' ? principal.userId : principal.minterUserId;
    return this.creators.get(String(reader)) ? [reader] : [];
  }

  /** Keeps the creator's identity and own bindings when this read loaded them. */
  private keepCreator(read: TaskFactsRead, known: KnownFacts, started: Started): void {
    const creator = read.task.ownerUserId;
    const identity = read.identities[creator];
    if (!identity || known.users.includes(creator) || !this.creators.keeps) return;
    const bindings = read.bindings.filter((b) => b.target.type === 'user');
    const scope = { creatorUserId: creator, teamNamespace: null };
    this.creators.set(String(creator), { identity, bindings }, started.generation, {
      ghostIds: [],
      ghostChangesSeen: started.ghostChangesSeen,
      bindings: scope,
    });
  }

  /**
   * `read` with the identities and the creator's bindings it left out (being in `known.users`)
   * taken from the creators' entries; undefined when one of them was dropped since the list was made.
   */
  private withKnownCreators(read: TaskFactsRead, known: KnownFacts, readerId?: number): TaskFactsRead | undefined {
    if (known.users.length === 0) return read;
    const needed = new Set<number>([read.task.ownerUserId, ...read.ghosts.map((g) => g.ownerUserId)]);
    if (read.subscription) needed.add(read.subscription.ownerUserId);
    if (readerId !== undefined) needed.add(readerId);
    const identities = { ...read.identities };
    let bindings = read.bindings;
    for (const id of needed) {
      if (!known.users.includes(id)) continue;
      const entry = this.creators.get(String(id));
      if (!entry) return undefined;
      identities[id] = entry.identity;
      if (id === read.task.ownerUserId) bindings = [...entry.bindings, ...bindings];
    }
    return { ...read, identities, bindings };
  }

  /**
   * The skills the resolver needs, and the team's entry, filled on the way: every skill the task's
   * selections may reach, or with the team's entry (its ghosts decided) only what the task adds.
   */
  private async loadSkills(
    facts: TaskSelectionFacts,
    team: TeamFacts | undefined,
    message: Message | null,
    started: Started,
    manager?: EntityManager,
  ): Promise<{ skills: SkillFacts[]; team?: TeamFacts }> {
    const own = taskReach(facts, message);
    // The ghosts have decided already: only the sources above them look skills up.
    const ownLookups = taskLookups(facts, message);
    if (team) return { skills: reachesNothing(own) ? [] : await this.reached(own, ownLookups, started), team };
    const ghosts = ghostReach(facts);
    const lookups = [...lookupsOf(reachArguments(ghosts)), ...ownLookups];
    const skills = await this.reached(unionReach(ghosts, own), lookups, started, manager);
    // Inside a transaction nothing is kept; with the teams' entries off there is nowhere to keep it.
    if (manager || !facts.team || !this.teams.keeps) return { skills };
    const owners = new Set(facts.ghosts.map((g) => g.ownerUserId));
    const identities = Object.fromEntries(Object.entries(facts.identities).filter(([id]) => owners.has(Number(id))));
    const entry: TeamFacts = {
      ghosts: facts.ghosts,
      ghostIds: facts.ghostIds,
      identities,
      decisions: decideGhosts({
        teamNamespace: facts.team.namespace,
        ghosts: facts.ghosts,
        identities,
        skills: skills.filter(reachFilter(ghosts)),
      }),
      groupBindings: facts.bindings.filter((b) => b.target.type === 'group'),
    };
    const bindings = { creatorUserId: null, teamNamespace: facts.team.namespace };
    this.teams.set(String(facts.team.id), entry, started.generation, {
      ghostIds: facts.ghostIds,
      ...started,
      bindings,
    });
    return { skills, team: entry };
  }

  /**
   * The skills the resolver looks at: what `lookups` (the ones it makes) find, from the kept
   * lookups where they are, the rest queried; `reach` whole inside a transaction, or when it pins
   * versions.
   */
  private async reached(
    reach: SkillReach,
    lookups: ReachLookup[],
    started: Started,
    manager?: EntityManager,
  ): Promise<SkillFacts[]> {
    const args = reachArguments(reach);
    if (manager) return this.facts.loadReached(args, manager);
    const { skills, queried } = await this.lookups.load(lookups, args, started.generation, (asked) =>
      this.facts.loadReached(asked),
    );
    this.metrics.skillLookupCache(!queried);
    return skills;
  }

  /**
   * The task's facts when the principal may read it: a token only its own task, a user per docs/api.md#access.
   * With `known`, see ResolutionFactsRepository.loadTaskFacts; the known creators' facts are filled in.
   */
  async readableFacts(
    principal: Principal,
    taskId: number,
    manager?: EntityManager,
    known: KnownFacts = NOTHING_KNOWN,
  ): Promise<TaskFactsRead> {
    if (principal.kind === 'task_token') {
      const facts = tokenReadsTask(principal, taskId) ? await this.knownFacts(taskId, undefined, known, manager) : null;
      if (!facts) throw DomainError.notFound(TASK_NOT_FOUND);
      return facts;
    }
    const facts = await this.knownFacts(taskId, principal.userId, known, manager);
    if (!facts) throw DomainError.notFound(TASK_NOT_FOUND);
    requireReadable(principal, facts.task, facts.identities[principal.userId] ?? plainIdentity(principal.userId));
    return facts;
  }

  /** The task's facts read with `known`, the known creators' filled in; read again in full when one was dropped meanwhile. */
  private async knownFacts(
    taskId: number,
    readerId: number | undefined,
    known: KnownFacts,
    manager?: EntityManager,
  ): Promise<TaskFactsRead | null> {
    const extra = readerId === undefined ? [] : [readerId];
    const read = await this.facts.loadTaskFacts(taskId, extra, known, manager);
    if (!read) return null;
    return (
      this.withKnownCreators(read, known, readerId) ?? this.facts.loadTaskFacts(taskId, extra, NOTHING_KNOWN, manager)
    );
  }
}
