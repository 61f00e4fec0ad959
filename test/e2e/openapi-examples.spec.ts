// Swagger UI on a fresh install: an operator who authorizes with the admin key and tries the
// operations in the order a user creates things (the README quickstart's: a user, a group, the
// quickstart's hello-world skill, a ghost, a bot, a team, a subscription, tasks, a token), sending
// each prefilled example as it stands, with the path ids and query values the document prefills,
// gets a success from every one. No id is rewritten: the examples name the ids a fresh install gives.
import request from 'supertest';
import { ADMIN_KEY, as, startTestApp, TestApp } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

type Json = Record<string, any>;

/** Every operation, in the order the walk tries it; `expect` is the answer other than a success. */
const WALK: Array<{ op: string; expect?: { status: number; code?: string; why: string } }> = [
  { op: 'getLiveness' },
  { op: 'getReadiness' },
  { op: 'getCurrentUser' },
  { op: 'createUser' },
  { op: 'listApiKeys' },
  { op: 'createApiKey' },
  { op: 'createGroup' },
  { op: 'listGroups' },
  { op: 'setGroupMember' },
  { op: 'getGroup' },
  { op: 'listGroupMembers' },
  { op: 'validateSkillPackage' },
  { op: 'createSkill' },
  { op: 'listSkills' },
  { op: 'getSkill' },
  { op: 'listSkillVersions' },
  { op: 'createSkillVersion' },
  { op: 'putSkillTag' },
  { op: 'listSkillTags' },
  { op: 'getSkillManifest' },
  { op: 'getSkillFile' },
  { op: 'downloadSkill' },
  { op: 'searchSkills' },
  {
    op: 'importSkills',
    expect: {
      status: 400,
      code: 'GIT_HOST_NOT_ALLOWED',
      why: 'a fresh install allows no git host (GIT_ALLOWED_HOSTS)',
    },
  },
  {
    op: 'getSkillSource',
    expect: { status: 404, code: 'NOT_FOUND', why: 'skill 1 was uploaded, not imported from git' },
  },
  {
    op: 'checkSkillSource',
    expect: { status: 404, code: 'NOT_FOUND', why: 'skill 1 was uploaded, not imported from git' },
  },
  {
    op: 'updateSkillFromSource',
    expect: { status: 404, code: 'NOT_FOUND', why: 'skill 1 was uploaded, not imported from git' },
  },
  { op: 'putMySkillBinding' },
  { op: 'listMySkillBindings' },
  {
    op: 'putGroupSkillBinding',
    expect: {
      status: 400,
      code: 'SKILL_SELECTION_INVALID',
      why: "skill 1 is the admin's personal skill: a group binds only its own or public skills",
    },
  },
  { op: 'listGroupSkillBindings' },
  { op: 'createGhost' },
  { op: 'listGhosts' },
  { op: 'getGhost' },
  { op: 'replaceGhost' },
  { op: 'createBot' },
  { op: 'listBots' },
  { op: 'getBot' },
  { op: 'replaceBot' },
  { op: 'createTeam' },
  { op: 'listTeams' },
  { op: 'getTeam' },
  { op: 'replaceTeam' },
  { op: 'createSubscription' },
  { op: 'listSubscriptions' },
  { op: 'getSubscription' },
  { op: 'replaceSubscription' },
  { op: 'createTask' },
  { op: 'listTasks' },
  { op: 'getTask' },
  { op: 'getTaskSkills' },
  { op: 'getTaskSkillsV1' },
  { op: 'createExecutionRequest' },
  { op: 'checkTaskTools' },
  { op: 'getTaskRemoteSkills' },
  { op: 'runSubscription' },
  { op: 'createTaskToken' },
  { op: 'listSkillsWegent' },
  { op: 'downloadSkillWegent' },
  { op: 'sendMcpMessage' },
  { op: 'openMcpEventStream', expect: { status: 405, code: 'METHOD_NOT_ALLOWED', why: 'the endpoint is stateless' } },
  { op: 'endMcpSession', expect: { status: 405, code: 'METHOD_NOT_ALLOWED', why: 'the endpoint is stateless' } },
  { op: 'listAuditEvents' },
  { op: 'getMetrics' },
  { op: 'sweepPackageStore' },
  { op: 'revokeTaskTokens' },
  { op: 'deleteSubscription' },
  { op: 'deleteTeam' },
  { op: 'deleteBot' },
  { op: 'deleteGhost' },
  { op: 'updateSkillVersionStatus' },
  {
    op: 'purgeSkillVersionContent',
    expect: { status: 409, code: 'VERSION_NOT_REVOKED', why: 'version 1 was deprecated, not revoked' },
  },
  { op: 'deleteSkillTag' },
  {
    op: 'deleteSkill',
    expect: { status: 409, code: 'SKILL_REFERENCED', why: 'the second ghost, subscription and task still name it' },
  },
  { op: 'deleteMySkillBinding' },
  {
    op: 'deleteGroupSkillBinding',
    expect: { status: 404, code: 'NOT_FOUND', why: 'group 1 has no binding of skill 1 (its PUT was refused)' },
  },
  { op: 'removeGroupMember' },
  { op: 'revokeApiKey' },
];

/** The README quickstart's package: what an operator following it uploads in the form. */
const HELLO_WORLD = skillZip('hello-world', {
  frontmatter: [
    'name: hello-world',
    'description: Greets the user by name. Use when a conversation starts.',
    'allowed-tools: Read Bash(echo *)',
  ].join('\n'),
  body: 'Say hello, then ask how to help.\n',
});

describe('Swagger examples on a fresh install, tried in the order a user creates things', () => {
  let t: TestApp;
  let doc: Json;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.http.get('/api/docs-json')).body;
  });
  afterAll(() => t.close());

  const operations = (): Array<{ method: string; path: string; op: Json }> =>
    Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item).map(([method, op]) => ({ method, path, op })),
    );
  const deref = (node: Json): Json => {
    if (!node?.$ref) return node;
    return (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json>((at, key) => at[key], doc);
  };

  it('walks every operation of the document', () => {
    expect(WALK.map((step) => step.op).sort()).toEqual(
      operations()
        .map(({ op }) => op.operationId as string)
        .sort(),
    );
  });

  it('answers every prefilled example with a success, as it stands', async () => {
    const byId = new Map(operations().map((entry) => [entry.op.operationId as string, entry]));
    const answers = new Map<string, request.Response>();
    const wrong: unknown[] = [];
    for (const step of WALK) {
      const { method, path, op } = byId.get(step.op)!;
      const params = ((op.parameters as Json[] | undefined) ?? []).map(deref);
      let url = path;
      for (const p of params.filter((param) => param.in === 'path')) {
        const value = p.example ?? p.schema?.example;
        if (value === undefined) wrong.push(`${step.op}: no example for the path parameter ${p.name}`);
        url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
      }
      const query = Object.fromEntries(
        params
          .filter((p) => p.in === 'query' && (p.example ?? p.schema?.example) !== undefined)
          .map((p) => [p.name, String(p.example ?? p.schema?.example)]),
      );
      const send = (): request.Test => {
        const req = t.http[method as 'get'](url).query(query).set(as(ADMIN_KEY));
        if (path.endsWith('/mcp')) void req.set('Accept', 'application/json, text/event-stream');
        return req;
      };
      const content = op.requestBody?.content as Json | undefined;
      const tries: Array<[string, () => request.Test]> = [];
      if (content?.['multipart/form-data']) {
        // The form's own prefilled values, and the quickstart's package as the file.
        const form = content['multipart/form-data'].schema as Json;
        tries.push([
          'form',
          () => {
            const req = send();
            for (const [name, prop] of Object.entries<Json>(form.properties)) {
              const value = prop.example ?? prop.default;
              if (prop.format !== 'binary' && value !== undefined) void req.field(name, String(value));
            }
            return req.attach('file', HELLO_WORLD, { filename: 'hello-world.zip', contentType: 'application/zip' });
          },
        ]);
      } else if (content?.['application/json']) {
        for (const [name, example] of Object.entries<Json>(content['application/json'].examples ?? {})) {
          tries.push([name, () => send().send(deref(example).value as object)]);
        }
        if (tries.length === 0) wrong.push(`${step.op}: a body without an example`);
      } else {
        tries.push(['none', send]);
      }
      for (const [example, run] of tries) {
        const res = await run();
        answers.set(`${step.op} ${example}`, res);
        const ok = step.expect
          ? res.status === step.expect.status && res.body?.code === step.expect.code
          : res.status >= 200 && res.status < 300;
        // An MCP answer is 200 either way: a tool's own failure is a result with isError.
        const mcpError = method === 'post' && path.endsWith('/mcp') && (res.body?.error || res.body?.result?.isError);
        if (!ok || mcpError) wrong.push({ op: step.op, example, status: res.status, body: res.body });
      }
    }
    expect(wrong).toEqual([]);
    // The examples made what they say: the first of each kind has id 1 (the admin is user 1), and
    // task 1 got the hello-world skill (skill 1) through ghost 1, bot 1 and team 1.
    expect(answers.get('createUser user')?.body).toMatchObject({ id: 2, user_name: 'alice' });
    expect(answers.get('createSkill form')?.body).toMatchObject({ id: 1, name: 'hello-world' });
    const skills = answers.get('getTaskSkills none')?.body;
    expect({
      task: skills?.task_id,
      skills: skills?.skills,
      ref: skills?.skill_refs?.['hello-world']?.skill_id,
    }).toEqual({
      task: 1,
      skills: ['hello-world'],
      ref: 1,
    });
  });
});
