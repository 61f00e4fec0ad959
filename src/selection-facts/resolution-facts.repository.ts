// Loads the plain facts the resolver decides over, in a constant number of queries: one for a
// task's selections and the identities behind them, one for every skill they may reach. Stored
// selections are read defensively (docs/resolution.md#stored-selections: stored data never makes a read fail): whatever
// shape a row holds, the facts come out well-typed, and only values a skill row could match reach
// the skill query, so a name the database cannot take is simply not found.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DEFAULT_NAMESPACE, GroupRole, isNamespaceName, isRowNumber, isSkillName } from '../access';
import {
  BINDING_EXCEPTION_TYPES,
  BindingException,
  BindingFacts,
  ExplicitSelection,
  GhostFacts,
  Identity,
  SkillCatalog,
  SkillFacts,
  StoredRef,
  storedSelections,
  latestFollowable,
  VersionFacts,
  type VersionStatus,
} from '../resolver';
import type { Requires } from '../policy';
import { PreparedStatement, queryPrepared } from '../database/prepared-query';

/** What may be reached: names in scopes, plus stored refs by id, plus pinned version numbers. */
export interface SkillReach {
  names: Iterable<string>;
  /** Users whose personal skills of those names are candidates. */
  personalOwners: Iterable<number>;
  /** Group namespaces whose skills of those names are candidates. */
  namespaces: Iterable<string>;
  ids: Iterable<number>;
  /** Version numbers pinned anywhere (loaded for every candidate skill). */
  versions: Iterable<number>;
}

export interface TaskSelectionFacts {
  task: { id: number; teamId: number; ownerUserId: number; namespace: string; labels: Record<string, string> };
  /** Null when the team is deleted. */
  team: { id: number; namespace: string } | null;
  ghosts: GhostFacts[];
  /** The subscription of the task's latest background execution; null when none or deleted. */
  subscription: { ownerUserId: number; skillRefs: ExplicitSelection[] } | null;
  identities: Record<number, Identity>;
  /** Every ghost the team's bots point at, deleted or not: a change to any of them may change the answer. */
  ghostIds: number[];
  /** The creator's bindings and those of every group of the team's lineage, of skills not deleted. */
  bindings: BindingFacts[];
}

/** What the caller keeps already, so the task statement leaves it out (see TaskFactsRead). */
export interface KnownFacts {
  /** Teams whose ghosts, their owners' identities and their lineage's bindings are kept. */
  teams: readonly number[];
  /** Users whose identity and own bindings are kept. */
  users: readonly number[];
}

export const NOTHING_KNOWN: KnownFacts = { teams: [], users: [] };

/**
 * A task's facts read with `known`: when its team is one of the known teams, `ghosts` and
 * `ghostIds` are empty, `identities` lacks the ghosts' owners and `bindings` the lineage's groups'
 * (the caller has them); `teamKnown` says so. A known user's identity is left out of
 * `identities`, and when the creator is one, their own bindings out of `bindings`.
 */
export type TaskFactsRead = TaskSelectionFacts & { teamKnown: boolean };

interface TaskRow {
  task: TaskSelectionFacts['task'] | null;
  team: { id: number; namespace: string; deleted: boolean } | null;
  ghosts: Array<{
    owner_user_id: number;
    skills: unknown;
    preload_skills: unknown;
    skill_refs: unknown;
    preload_skill_refs: unknown;
  }> | null;
  subscriptions: Array<{
    execution_id: number;
    owner_user_id: number;
    skill_refs: unknown;
    deleted: boolean;
  }> | null;
  users: Array<{ id: number; role: string; memberships: Array<{ name: string; role: GroupRole }> | null }> | null;
  ghost_ids: number[] | null;
  team_known: boolean | null;
  bindings: BindingRow[] | null;
}

interface BindingRow {
  id: number;
  skill_id: number;
  user_id: number | null;
  group_name: string | null;
  preload: boolean;
  exceptions: unknown;
  name: string;
  namespace: string;
  is_public: boolean;
}

/** What a version says of itself, beyond the facts the resolver needs. */
export interface VersionSummary {
  description: string;
  /** The frontmatter `metadata` value as written (any YAML value), undefined when absent. */
  metadata: unknown;
}

export function versionKey(skillId: number, version: number): string {
  return `${skillId}:${version}`;
}

interface VersionRow {
  version: number;
  content_hash: string;
  allowed_tools: string[] | null;
  requires: Requires;
  status: VersionStatus;
}

interface SkillRow {
  id: number;
  name: string;
  namespace: string;
  is_public: boolean;
  owner_user_id: number | null;
  deleted: boolean;
  /** From the newest active-or-deprecated version up, plus the pinned and tagged ones. */
  versions: VersionRow[] | null;
  tags: Record<string, number> | null;
}

/** The identities of the users of `ids.ids` that `condition` (on `u`) keeps, as one JSON array. */
function usersJson(condition = 'true'): string {
  return `
  SELECT json_agg(json_build_object(
           'id', u.id, 'role', u.role,
           'memberships', (SELECT json_agg(json_build_object('name', g.name, 'role', m.role))
                             FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = u.id)))
    FROM users u WHERE u.id = ANY(ids.ids) AND ${condition}`;
}

/**
 * The task, its team's ghosts, its subscriptions, every identity involved and the bindings that may
 * apply, as JSON columns. What the team gives every task of it (its ghosts, the ids its bots point
 * at, the ghosts' owners, its lineage's bindings) comes from resolution_team_facts (migration
 * TeamFactsFunction), called only when the team is not one of `$3`: a replica that keeps the team
 * runs none of it. The identities of the users in `$4` are left out, and the creator's own
 * bindings when the creator is one of them.
 */
const TASK_SELECTIONS: PreparedStatement = {
  name: 'resolution_task_selections',
  text: `WITH t AS (SELECT id, team_id, owner_user_id, namespace, labels FROM tasks WHERE id = $1),
        tm AS (SELECT teams.id, teams.namespace, teams.members, teams.deleted_at IS NOT NULL AS deleted,
                      teams.id = ANY($3::int[]) AND teams.deleted_at IS NULL AS known
                 FROM teams WHERE teams.id = (SELECT team_id FROM t)),
        tf AS (SELECT resolution_team_facts(tm.members, tm.namespace) AS f FROM tm WHERE NOT tm.deleted AND NOT tm.known),
        sub AS (SELECT e.id AS execution_id, s.owner_user_id, s.skill_refs, s.deleted_at IS NOT NULL AS deleted
                  FROM background_executions e JOIN subscriptions s ON s.id = e.subscription_id
                 WHERE e.task_id = $1),
        -- Each bound skill by its id (LIMIT 1 keeps the lookup a per-binding index scan): a join the
        -- planner could turn into a hash of every skill (docs/benchmarks.md).
        own AS (SELECT b.id, b.skill_id, b.user_id, NULL::text AS group_name, b.preload, b.exceptions,
                       s.name, s.namespace, s.is_public
                  FROM t JOIN skill_bindings b ON b.user_id = t.owner_user_id
                  CROSS JOIN LATERAL (SELECT s.name, s.namespace, s.is_public FROM skills s
                                       WHERE s.id = b.skill_id AND s.deleted_at IS NULL LIMIT 1) s
                 WHERE t.owner_user_id <> ALL($4::int[])),
        ids AS (SELECT array(SELECT owner_user_id FROM t UNION SELECT owner_user_id FROM sub
                             UNION SELECT json_array_elements_text(tf.f->'owners')::int FROM tf
                             UNION SELECT unnest($2::int[])) AS ids)
   SELECT (SELECT json_build_object('id', id, 'teamId', team_id, 'ownerUserId', owner_user_id,
                                    'namespace', namespace, 'labels', labels) FROM t) AS task,
          (SELECT json_build_object('id', id, 'namespace', namespace, 'deleted', deleted) FROM tm) AS team,
          (SELECT tf.f->'ghosts' FROM tf) AS ghosts,
          (SELECT json_agg(sub) FROM sub) AS subscriptions,
          (${usersJson('u.id <> ALL($4::int[])')}) AS users,
          (SELECT tf.f->'ghost_ids' FROM tf) AS ghost_ids,
          (SELECT known FROM tm) AS team_known,
          (SELECT json_agg(b) FROM (SELECT row_to_json(own) AS b FROM own
                                    UNION ALL SELECT json_array_elements(tf.f->'bindings') FROM tf) bound) AS bindings
     FROM ids`,
};

/**
 * One index-backed branch per way a skill can be reached (see loadSkills), in a function that runs
 * one generic plan per connection (migration ReachedSkillsFunction): planning it on every call
 * cost more than running it.
 */
const REACHED_SKILLS: PreparedStatement = {
  name: 'resolution_reached_skills',
  text: `SELECT * FROM resolution_reached_skills($1::int[], $2::text[], $3::text[], $4::int[], $5::int[])`,
};

@Injectable()
export class ResolutionFactsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The task, its team's ghosts in member order, its subscriptions and every identity involved. */
  async loadTaskSelections(
    taskId: number,
    extraUserIds: number[] = [],
    manager: EntityManager = this.db.manager,
  ): Promise<TaskSelectionFacts | null> {
    return this.loadTaskFacts(taskId, extraUserIds, NOTHING_KNOWN, manager);
  }

  /** The same, but without what `known` says the caller keeps (see TaskFactsRead). */
  async loadTaskFacts(
    taskId: number,
    extraUserIds: number[],
    known: KnownFacts,
    manager: EntityManager = this.db.manager,
  ): Promise<TaskFactsRead | null> {
    const params = [taskId, extraUserIds, idArray(known.teams), idArray(known.users)];
    const rows = await queryPrepared<TaskRow>(this.db, TASK_SELECTIONS, params, manager);
    const row = rows[0];
    if (!row?.task) return null;
    return {
      teamKnown: row.team_known === true,
      task: { ...row.task, labels: isPlainObject(row.task.labels) ? row.task.labels : {} },
      team: row.team && !row.team.deleted ? { id: row.team.id, namespace: row.team.namespace } : null,
      ghosts: (row.ghosts ?? []).map((g) => ({
        ownerUserId: g.owner_user_id,
        skills: storedNames(g.skills),
        preloadSkills: storedNames(g.preload_skills),
        skillRefs: storedRefs(g.skill_refs),
        preloadSkillRefs: storedRefs(g.preload_skill_refs),
      })),
      subscription: latestSubscription(row.subscriptions ?? []),
      identities: toIdentities(row.users),
      ghostIds: row.ghost_ids ?? [],
      bindings: (row.bindings ?? []).map(toBindingFacts),
    };
  }

  /** Identities (admin flag and direct group roles) of the given users. */
  async loadIdentities(userIds: number[], manager: EntityManager = this.db.manager): Promise<Record<number, Identity>> {
    const rows: Array<{ users: TaskRow['users'] }> = await manager.query(
      `WITH ids AS (SELECT $1::int[] AS ids) SELECT (${usersJson()}) AS users FROM ids`,
      [userIds],
    );
    return toIdentities(rows[0]?.users ?? null);
  }

  /**
   * The description and frontmatter `metadata` of each (skill, version), in one query, keyed by
   * versionKey: what VeADK's remote-skills document is built from (immutable per version).
   */
  async loadVersionSummaries(
    versions: ReadonlyArray<{ skill_id: number; version: number }>,
    manager: EntityManager = this.db.manager,
  ): Promise<Map<string, VersionSummary>> {
    if (versions.length === 0) return new Map();
    const rows: Array<{ skill_id: number; version: number; description: string | null; metadata: unknown }> =
      await manager.query(
        `SELECT v.skill_id, v.version, v.frontmatter->>'description' AS description, v.frontmatter->'metadata' AS metadata
           FROM unnest($1::int[], $2::int[]) AS p(skill_id, version)
           JOIN skill_versions v ON v.skill_id = p.skill_id AND v.version = p.version`,
        [versions.map((v) => v.skill_id), versions.map((v) => v.version)],
      );
    return new Map(
      rows.map((r) => [versionKey(r.skill_id, r.version), { description: r.description ?? '', metadata: r.metadata }]),
    );
  }

  /** Every skill (deleted ones too) that the reach names, with its latest, tagged and pinned versions. */
  async loadCatalog(reach: SkillReach, manager: EntityManager = this.db.manager): Promise<SkillCatalog> {
    return new SkillCatalog(await this.loadSkills(reach, manager));
  }

  async loadSkills(reach: SkillReach, manager: EntityManager = this.db.manager): Promise<SkillFacts[]> {
    return this.loadReached(reachArguments(reach), manager);
  }

  /** The skills `args` reach: every skill of every branch of ReachArguments, deleted ones too. */
  async loadReached(args: ReachArguments, manager: EntityManager = this.db.manager): Promise<SkillFacts[]> {
    const rows = await queryPrepared<SkillRow>(
      this.db,
      REACHED_SKILLS,
      [args.ids, args.names, args.groups, args.owners, args.versions],
      manager,
    );
    return rows.map(toSkillFacts);
  }
}

/**
 * A reach as the skill query takes it, each list without repeats and holding only values a skill
 * row could match. The query's branches: the skills of `ids`; the public skills of `names`; the
 * skills of `names` in each of `groups`; the personal skills of `names` of each of `owners`. Every
 * skill of those comes with its latest versions, its tagged ones and those numbered in `versions`.
 */
export interface ReachArguments {
  ids: number[];
  names: string[];
  groups: string[];
  owners: number[];
  versions: number[];
}

export function reachArguments(reach: SkillReach): ReachArguments {
  // One index-backed branch per way a skill can be reached, so the rows read follow the answer,
  // not the size of the table. Personal skills are reached through their owners only: `default`
  // in the namespace list would reach every user's skill of that name.
  return {
    ids: [...new Set(reach.ids)].filter(isRowNumber),
    names: [...new Set(reach.names)].filter(isSkillName),
    groups: [...new Set(reach.namespaces)].filter((n) => n !== DEFAULT_NAMESPACE && isNamespaceName(n)),
    owners: [...new Set(reach.personalOwners)].filter(isRowNumber),
    versions: [...new Set(reach.versions)].filter(isRowNumber),
  };
}

/** Only the latest execution counts; if its subscription is deleted, there is none. */
function latestSubscription(rows: NonNullable<TaskRow['subscriptions']>): TaskSelectionFacts['subscription'] {
  const latest = rows.reduce<(typeof rows)[number] | null>(
    (a, b) => (!a || b.execution_id > a.execution_id ? b : a),
    null,
  );
  return latest && !latest.deleted
    ? { ownerUserId: latest.owner_user_id, skillRefs: storedSelections(latest.skill_refs, true) }
    : null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stored list of names: its non-empty strings. */
function storedNames(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.length > 0) : [];
}

/**
 * Stored refs by name. A ref whose id is not a row id keeps its name but points at no row (0), so it
 * fails NOT_FOUND as a stored ref should, rather than being replaced by a lookup.
 */
function storedRefs(value: unknown): Record<string, StoredRef> {
  if (!isPlainObject(value)) return {};
  // fromEntries defines own properties, whatever the name (`__proto__` included).
  return Object.fromEntries(
    Object.entries(value).map(([name, raw]): [string, StoredRef] => {
      const ref = isPlainObject(raw) ? raw : {};
      const stored: StoredRef = { skill_id: isRowNumber(ref.skill_id) ? ref.skill_id : 0 };
      if (isRowNumber(ref.version)) stored.version = ref.version;
      if (typeof ref.pinned === 'boolean') stored.pinned = ref.pinned;
      if (typeof ref.tag === 'string') stored.tag = ref.tag;
      return [name, stored];
    }),
  );
}

/** Ids as an array literal: pg would escape each of up to a few hundred ids as text. */
function idArray(ids: readonly number[]): string {
  return `{${ids.filter(isRowNumber).join(',')}}`;
}

function toBindingFacts(row: BindingRow): BindingFacts {
  return {
    id: row.id,
    skillId: row.skill_id,
    name: row.name,
    namespace: row.namespace,
    isPublic: row.is_public,
    target:
      row.user_id !== null ? { type: 'user', userId: row.user_id } : { type: 'group', groupName: row.group_name! },
    preload: row.preload,
    exceptions: storedExceptions(row.exceptions),
  };
}

/** Stored exceptions: the well-formed entries only (a bad one matches no task). */
function storedExceptions(value: unknown): BindingException[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw): BindingException[] => {
    if (!isPlainObject(raw) || typeof raw.value !== 'string') return [];
    const type = BINDING_EXCEPTION_TYPES.find((t) => t === raw.type);
    return type ? [{ type, value: raw.value }] : [];
  });
}

function toIdentities(users: TaskRow['users']): Record<number, Identity> {
  const identities: Record<number, Identity> = {};
  for (const user of users ?? []) {
    identities[user.id] = {
      userId: user.id,
      isAdmin: user.role === 'admin',
      directRoles: Object.fromEntries((user.memberships ?? []).map((m) => [m.name, m.role])),
    };
  }
  return identities;
}

function toSkillFacts(row: SkillRow): SkillFacts {
  const versions: Record<number, VersionFacts> = {};
  for (const v of row.versions ?? []) {
    versions[v.version] = {
      version: v.version,
      contentHash: v.content_hash,
      allowedTools: v.allowed_tools,
      requires: requiresOf(v.requires),
      status: v.status,
    };
  }
  return {
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    isPublic: row.is_public,
    // Only a personal skill has an owner in the resolver's sense; a group skill's creator is not one.
    ownerUserId: row.namespace === DEFAULT_NAMESPACE && !row.is_public ? row.owner_user_id : null,
    deleted: row.deleted,
    latest: latestFollowable(Object.values(versions)) ?? null,
    versions,
    // fromEntries: own properties whatever the tag (tag names are checked on write anyway).
    tags: Object.fromEntries(Object.entries(row.tags ?? {})),
  };
}

/** jsonb gives keys back in its own order (`env` before `bins`); answers list `bins` first. */
function requiresOf(stored: Requires): Requires {
  return { bins: stored.bins, env: stored.env };
}
