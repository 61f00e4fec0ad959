// What Swagger UI says about each operation beyond its one-line summary, and about the ids in its
// paths: written once here, by stable operation id, so a reader trying the operations in the
// order a user creates things (the README quickstart's order) gets ids a fresh install produces.

/** The longer text of each operation, with where docs/ explains it. Handlers may set their own. */
export const OPERATION_DESCRIPTIONS: Readonly<Record<string, string>> = {
  getMetrics:
    'The Prometheus text format. Send an admin key, or `Authorization: Bearer <METRICS_TOKEN>`; other users and task tokens get 404. See docs/operations.md#metrics.',
  createUser:
    "Creates a user and its first API key, shown once in `api_key` (only its SHA-256 is kept). On a fresh install the admin is user 1, so the example's `alice` is user 2.",
  getCurrentUser: 'Who the credentials belong to. Task tokens are not users: 404.',
  createApiKey: 'Another key for the user, shown once. An admin may mint keys for anyone; a user only for themselves.',
  listApiKeys:
    'Active keys by `prefix` (their first 12 characters), with `last_used_at` (written at most once a minute).',
  revokeApiKey: 'Revokes one key at once, on every replica. The example revokes the first key of user 2 (`alice`).',
  createGroup:
    'A group is a namespace (`a`, `a/b`, `a/b/c`). A child needs Maintainer+ on its parent. On a fresh install the example is group 1. See docs/api.md#access.',
  listGroups:
    'Groups where the caller has an effective role (roles in a parent hold in its children). Admins see every group.',
  getGroup: "A group with the caller's effective role; 404 for a group where the caller has none.",
  listGroupMembers: 'Direct members with their roles (Reporter+).',
  setGroupMember:
    'Maintainer+ manage members below Owner; only Owners grant, change or remove Owner; the last direct Owner cannot be demoted (409 LAST_OWNER). The example makes user 2 a Developer of group 1.',
  removeGroupMember:
    'Maintainer+ remove members below Owner; anyone may leave; the last direct Owner cannot (409 LAST_OWNER).',
  getLiveness: 'For a liveness probe: answers while the process does. No credentials.',
  getReadiness:
    'For a readiness probe: 503 DATABASE_UNAVAILABLE within 2 s when the database does not answer. No credentials.',
  listSkills:
    'Skills the caller may read, ordered by id, with filters. For ranked matches by meaning use GET /api/skills/search.',
  validateSkillPackage:
    'Inspects a package exactly as publishing would and answers every problem, valid or not; stores nothing. See docs/packages.md#validation.',
  createSkillVersion:
    "Publishes the package as version N+1 of skill `id`; its name must be the skill's. Files identical to the latest version's answer 200 and store nothing. See docs/packages.md#versions.",
  listSkillVersions: 'Every version, newest first; `next_cursor` is the last version number of the page.',
  searchSkills:
    'Lexical search over the name, description and SKILL.md of every skill the caller may read. See docs/search.md.',
  getSkill: 'A skill with its latest version (content hash, revision, tool policy).',
  deleteSkill:
    'Soft delete: the name is free again and ids are never reused. While a ghost, subscription or task refers to the skill: 409 SKILL_REFERENCED with the referrers the caller may read, unless `force=true`. See docs/packages.md#deleting.',
  createGhost:
    'A ghost is a persona: the skills every bot made from it carries. Names without a ref get one by lookup as the creator. The first example needs nothing to exist (ghost 1 on a fresh install); the second preloads skill 1 (`hello-world`). See docs/api.md#resources.',
  listGhosts: 'Ghosts the caller may read, ordered by id.',
  getGhost: 'A ghost with each stored ref as it reads now (current namespace, latest or pinned version and hash).',
  replaceGhost:
    'Replaces the whole writable body; leaving `namespace` out keeps it, another one is 400. Refs are re-checked.',
  deleteGhost: 'Soft delete; 409 IN_USE while an active bot uses the ghost.',
  createBot: 'A bot runs a ghost. On a fresh install the example uses ghost 1 and becomes bot 1.',
  listBots: 'Bots the caller may read, ordered by id.',
  getBot: 'A bot the caller may read.',
  replaceBot: 'Replaces the whole writable body; an id already stored only has to still exist.',
  deleteBot: 'Soft delete; 409 IN_USE while an active team lists the bot.',
  createTeam:
    "A team's tasks get its bots' ghosts' skills, in member order. On a fresh install the example uses bot 1 and becomes team 1.",
  listTeams: 'Teams the caller may read, ordered by id.',
  getTeam: 'A team the caller may read.',
  replaceTeam: 'Replaces the whole writable body, members included.',
  deleteTeam: "Soft delete; the team's tasks keep its id and resolve with the namespace `default`.",
  createSubscription:
    'A scheduled job on a team: its `skill_refs` enter every task run from it. On a fresh install the first example uses team 1 and becomes subscription 1.',
  listSubscriptions: 'Subscriptions the caller may read, ordered by id.',
  getSubscription: 'A subscription the caller may read.',
  replaceSubscription: 'Replaces the whole writable body; every selection must resolve for its owner.',
  deleteSubscription: 'Soft delete; tasks already run from it stay, and it contributes nothing to them any more.',
  createTask:
    "A task on a team the caller may read; it takes the team's namespace. On a fresh install the first example uses team 1 and becomes task 1. `skill_selection` is written as the labels `additionalSkills` and `requestedSkillRefs`.",
  listTasks: 'Tasks the caller may read, ordered by id.',
  getTask: 'A task the caller may read; a task token reads its own task.',
  createTaskToken:
    'A token for a sandbox or an executor: it reads task `id` and the skills it resolves to, nothing else, while its minter may read the task. Shown once. See docs/api.md#authentication.',
  revokeTaskTokens:
    "Revokes every token of the task at once (the task's creator, Maintainer+ in its namespace, admins).",
  runSubscription:
    "Creates a task owned by the caller on the subscription's team, and the background execution that links them.",
  getTaskSkills:
    'The answer sandboxes and local devices use: every selected name as an exact ref, what did not resolve and why, and the fingerprint (the ETag). See docs/resolution.md#output.',
  getTaskSkillsV1: 'Byte for byte GET /api/tasks/{id}/skills, on the path Wegent executors and sandbox managers call.',
  createExecutionRequest:
    "What an executor asks when it starts a run: the task's resolution with the message's selections on top. Nothing is stored unless `persist` is true. See docs/resolution.md#executionrequest.",
  checkTaskTools:
    "Tool-check writes nothing and leaves the caches valid, so a sandbox may call it before every tool call. `skills` defaults to the task's preload skills. See docs/api.md#tool-check and docs/tool-policy.md.",
  getTaskRemoteSkills:
    "For VeADK's load_remote_skill_definitions; always passes its loader's rules. See docs/api.md#veadk-manifest.",
  downloadSkillWegent: 'The same bytes, headers and access as GET /api/skills/{id}/download, on the path Wegent calls.',
  listSkillsWegent:
    'With `task_id`, what `name` resolves to for that task (a token: its own task by default); without, a name lookup as the caller in `namespace`. 0 or 1 item. See docs/api.md#wegent-routes.',
  getSkillManifest:
    'Everything needed to activate a skill in one call: files, frontmatter, tool policy and the text of SKILL.md.',
  listAuditEvents:
    'Admins read every event; an Owner of a group reads the events of that group and its children; others 403. See docs/operations.md#audit-log.',
  openMcpEventStream: 'The endpoint is stateless: there is no event stream to open. Always 405 with `Allow: POST`.',
  endMcpSession: 'The endpoint is stateless: there is no session to end. Always 405 with `Allow: POST`.',
};

interface PathIdDoc {
  description: string;
  example: number;
}

/**
 * Path ids by collection and parameter name, each with the id a fresh install gives the first
 * thing of its kind when the operations' examples are tried in order (the admin is user 1, so
 * the createUser example's `alice` is user 2 and her first key is key 2).
 */
const PATH_IDS: Readonly<Record<string, PathIdDoc>> = {
  'users:id': {
    description: "The user's id (2: `alice`, made by the createUser example on a fresh install)",
    example: 2,
  },
  'users:keyId': { description: "The key's id (2: `alice`'s first key on a fresh install)", example: 2 },
  'groups:id': { description: "The group's id (1: the first group of a fresh install)", example: 1 },
  'groups:skillId': {
    description: "The bound skill's id (1: the first skill published on a fresh install)",
    example: 1,
  },
  'users:skillId': {
    description: "The bound skill's id (1: the first skill published on a fresh install)",
    example: 1,
  },
  'groups:userId': { description: "The member's user id (2: `alice` on a fresh install)", example: 2 },
  'skills:id': { description: "The skill's id (1: the first skill published on a fresh install)", example: 1 },
  'ghosts:id': { description: "The ghost's id (1: the first ghost of a fresh install)", example: 1 },
  'bots:id': { description: "The bot's id (1: the first bot of a fresh install)", example: 1 },
  'teams:id': { description: "The team's id (1: the first team of a fresh install)", example: 1 },
  'subscriptions:id': {
    description: "The subscription's id (1: the first subscription of a fresh install)",
    example: 1,
  },
  'tasks:id': { description: "The task's id (1: the first task of a fresh install)", example: 1 },
};

/** `/api/v1/kinds/skills/{id}` is a skill, `/api/v1/tasks/{id}` a task: the collection after the prefix. */
function collectionOf(path: string, prefix: string): string {
  const rest = path.slice(prefix.length + 2).split('/');
  const named = rest[0] === 'v1' ? rest.slice(rest[1] === 'kinds' ? 2 : 1) : rest;
  return named[0];
}

/** The description and example of a path id, or null for a parameter this table does not know. */
export function pathIdDoc(path: string, prefix: string, name: string): PathIdDoc | null {
  return PATH_IDS[`${collectionOf(path, prefix)}:${name}`] ?? null;
}
