// The OpenAPI document operators read in Swagger UI (docs/api.md#swagger-ui): it resolves, names its
// operations stably, documents the contract's errors, types ids as ids, and its examples work.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_STATUS } from '../../src/common/errors/domain-error';
import { publishSkill } from '../support/skills';
import { ADMIN_KEY, as, startTestApp, TestApp } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

type Json = Record<string, any>;
interface Op {
  method: string;
  path: string;
  op: Json;
}

const ERROR_SCHEMA_REF = '#/components/schemas/ErrorResponseDto';

function operations(doc: Json): Op[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, op]) => ({ method, path, op })),
  );
}

/** The node a local reference points at (RFC 6901), or undefined. */
function resolveRef(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** Every `$ref` anywhere in the document, with where it sits. */
function refsOf(doc: Json): Array<{ at: string; ref: string }> {
  const found: Array<{ at: string; ref: string }> = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, `${at}/${i}`));
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') found.push({ at, ref: value });
        else walk(value, `${at}/${key}`);
      }
    }
  };
  walk(doc, '#');
  return found;
}

const deref = (doc: Json, node: Json): Json => (node?.$ref ? (resolveRef(doc, node.$ref) as Json) : node);

/** Every operation as `METHOD path operationId tag`: a rename or a move is a visible change of this list. */
const PINNED_OPERATIONS = [
  'DELETE /api/groups/{id}/skill-bindings/{skillId} deleteGroupSkillBinding skill-bindings',
  'DELETE /api/users/me/skill-bindings/{skillId} deleteMySkillBinding skill-bindings',
  'GET /api/groups/{id}/skill-bindings listGroupSkillBindings skill-bindings',
  'PUT /api/groups/{id}/skill-bindings/{skillId} putGroupSkillBinding skill-bindings',
  'GET /api/users/me/skill-bindings listMySkillBindings skill-bindings',
  'PUT /api/users/me/skill-bindings/{skillId} putMySkillBinding skill-bindings',

  'GET /api/health/live getLiveness health',
  'GET /api/health/ready getReadiness health',
  'POST /api/users createUser users',
  'GET /api/users/me getCurrentUser users',
  'POST /api/users/{id}/api-keys createApiKey users',
  'GET /api/users/{id}/api-keys listApiKeys users',
  'DELETE /api/users/{id}/api-keys/{keyId} revokeApiKey users',
  'POST /api/groups createGroup groups',
  'GET /api/groups listGroups groups',
  'GET /api/groups/{id} getGroup groups',
  'GET /api/groups/{id}/members listGroupMembers groups',
  'PUT /api/groups/{id}/members/{userId} setGroupMember groups',
  'DELETE /api/groups/{id}/members/{userId} removeGroupMember groups',
  'POST /api/skills createSkill skills',
  'POST /api/skills/imports importSkills skills',
  'GET /api/skills listSkills skills',
  'POST /api/skills/validate validateSkillPackage skills',
  'POST /api/skills/{id}/source/check checkSkillSource skills',
  'POST /api/skills/{id}/source/update updateSkillFromSource skills',
  'GET /api/skills/{id} getSkill skills',
  'DELETE /api/skills/{id} deleteSkill skills',
  'PATCH /api/skills/{id}/versions/{version} updateSkillVersionStatus skills',
  'POST /api/admin/blob-gc sweepPackageStore storage',
  'GET /api/skills/{id}/tags listSkillTags skills',
  'PUT /api/skills/{id}/tags/{tag} putSkillTag skills',
  'DELETE /api/skills/{id}/tags/{tag} deleteSkillTag skills',
  'DELETE /api/skills/{id}/versions/{version}/content purgeSkillVersionContent skills',
  'POST /api/skills/{id}/versions createSkillVersion skills',
  'GET /api/skills/{id}/versions listSkillVersions skills',
  'GET /api/skills/{id}/manifest getSkillManifest skills',
  'GET /api/skills/{id}/source getSkillSource skills',
  'GET /api/skills/{id}/download downloadSkill skills',
  'GET /api/skills/search searchSkills discovery',
  'GET /api/skills/{id}/files/{path} getSkillFile discovery',
  'POST /api/ghosts createGhost ghosts',
  'GET /api/ghosts listGhosts ghosts',
  'GET /api/ghosts/{id} getGhost ghosts',
  'PUT /api/ghosts/{id} replaceGhost ghosts',
  'DELETE /api/ghosts/{id} deleteGhost ghosts',
  'POST /api/bots createBot bots',
  'GET /api/bots listBots bots',
  'GET /api/bots/{id} getBot bots',
  'PUT /api/bots/{id} replaceBot bots',
  'DELETE /api/bots/{id} deleteBot bots',
  'POST /api/teams createTeam teams',
  'GET /api/teams listTeams teams',
  'GET /api/teams/{id} getTeam teams',
  'PUT /api/teams/{id} replaceTeam teams',
  'DELETE /api/teams/{id} deleteTeam teams',
  'POST /api/subscriptions createSubscription subscriptions',
  'GET /api/subscriptions listSubscriptions subscriptions',
  'GET /api/subscriptions/{id} getSubscription subscriptions',
  'PUT /api/subscriptions/{id} replaceSubscription subscriptions',
  'DELETE /api/subscriptions/{id} deleteSubscription subscriptions',
  'POST /api/subscriptions/{id}/executions runSubscription subscriptions',
  'POST /api/tasks createTask tasks',
  'GET /api/tasks listTasks tasks',
  'GET /api/tasks/{id} getTask tasks',
  'POST /api/tasks/{id}/tokens createTaskToken tasks',
  'DELETE /api/tasks/{id}/tokens revokeTaskTokens tasks',
  'GET /api/tasks/{id}/skills getTaskSkills resolution',
  'POST /api/tasks/{id}/execution-requests createExecutionRequest resolution',
  'GET /api/tasks/{id}/remote-skills.json getTaskRemoteSkills resolution',
  'POST /api/tasks/{id}/tool-check checkTaskTools tool-policy',
  'GET /api/v1/tasks/{id}/skills getTaskSkillsV1 wegent',
  'GET /api/v1/kinds/skills listSkillsWegent wegent',
  'GET /api/v1/kinds/skills/{id}/download downloadSkillWegent wegent',
  'POST /api/mcp sendMcpMessage mcp',
  'GET /api/mcp openMcpEventStream mcp',
  'DELETE /api/mcp endMcpSession mcp',
  'GET /api/audit-events listAuditEvents audit',
  'GET /api/metrics getMetrics metrics',
];

/**
 * The error answers docs/api.md#errors (with docs/api.md#access, docs/api.md#resources, docs/api.md#discovery, docs/mcp.md and docs/api.md#swagger-ui) gives each operation, beyond what every
 * authenticated one may answer (401, 429, 503) and what every JSON body may (400 BAD_REQUEST, 408, 413).
 */
const DOCUMENTED_ERRORS: Record<string, Array<[number, string]>> = {
  purgeSkillVersionContent: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'VERSION_NOT_REVOKED'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  sweepPackageStore: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [409, 'IN_USE'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  getReadiness: [
    [503, 'DATABASE_UNAVAILABLE'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  createUser: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [409, 'USER_EXISTS'],
  ],
  createApiKey: [[404, 'NOT_FOUND']],
  listApiKeys: [[404, 'NOT_FOUND']],
  revokeApiKey: [[404, 'NOT_FOUND']],
  createGroup: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'GROUP_EXISTS'],
  ],
  getGroup: [[404, 'NOT_FOUND']],
  listGroupMembers: [[404, 'NOT_FOUND']],
  setGroupMember: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'LAST_OWNER'],
  ],
  removeGroupMember: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'LAST_OWNER'],
  ],
  createSkill: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_INVALID'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [408, 'REQUEST_TIMEOUT'],
    [409, 'SKILL_EXISTS'],
    [413, 'PACKAGE_TOO_LARGE'],
    [429, 'RATE_LIMITED'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  createSkillVersion: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_INVALID'],
    [400, 'NAME_MISMATCH'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [408, 'REQUEST_TIMEOUT'],
    [413, 'PACKAGE_TOO_LARGE'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  validateSkillPackage: [
    [400, 'VALIDATION_FAILED'],
    [408, 'REQUEST_TIMEOUT'],
    [413, 'PACKAGE_TOO_LARGE'],
  ],
  listSkills: [[400, 'VALIDATION_FAILED']],
  searchSkills: [
    [400, 'VALIDATION_FAILED'],
    [404, 'NOT_FOUND'],
  ],
  getSkill: [[404, 'NOT_FOUND']],
  listSkillVersions: [[404, 'NOT_FOUND']],
  getSkillManifest: [[404, 'NOT_FOUND']],
  downloadSkill: [
    [404, 'NOT_FOUND'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  getSkillFile: [
    [404, 'NOT_FOUND'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  deleteSkill: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'SKILL_REFERENCED'],
  ],
  createGhost: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_SELECTION_INVALID'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  replaceGhost: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_SELECTION_INVALID'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  deleteGhost: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'IN_USE'],
  ],
  createBot: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  replaceBot: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  deleteBot: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'IN_USE'],
  ],
  createTeam: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  replaceTeam: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  deleteTeam: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
  ],
  createSubscription: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_SELECTION_INVALID'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  replaceSubscription: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_SELECTION_INVALID'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'NAME_TAKEN'],
  ],
  deleteSubscription: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
  ],
  runSubscription: [[404, 'NOT_FOUND']],
  createTask: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_SELECTION_INVALID'],
    [404, 'NOT_FOUND'],
  ],
  getTask: [[404, 'NOT_FOUND']],
  createTaskToken: [
    [400, 'VALIDATION_FAILED'],
    [404, 'NOT_FOUND'],
  ],
  revokeTaskTokens: [
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
  ],
  getTaskSkills: [[404, 'NOT_FOUND']],
  getTaskSkillsV1: [[404, 'NOT_FOUND']],
  createExecutionRequest: [
    [400, 'VALIDATION_FAILED'],
    [400, 'SKILL_SELECTION_INVALID'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
  ],
  checkTaskTools: [
    [400, 'VALIDATION_FAILED'],
    [404, 'NOT_FOUND'],
  ],
  getTaskRemoteSkills: [[404, 'NOT_FOUND']],
  listSkillsWegent: [[404, 'NOT_FOUND']],
  downloadSkillWegent: [
    [404, 'NOT_FOUND'],
    [503, 'STORAGE_UNAVAILABLE'],
  ],
  sendMcpMessage: [
    [400, 'BAD_REQUEST'],
    [400, 'VALIDATION_FAILED'],
  ],
  openMcpEventStream: [[405, 'METHOD_NOT_ALLOWED']],
  endMcpSession: [[405, 'METHOD_NOT_ALLOWED']],
  listAuditEvents: [
    [400, 'VALIDATION_FAILED'],
    [403, 'FORBIDDEN'],
  ],
  getMetrics: [[404, 'NOT_FOUND']],
};

/** The example codes documented for one status of an operation (examples resolved). */
function documentedCodes(doc: Json, op: Json, status: number): string[] {
  const response = deref(doc, op.responses?.[status]);
  const examples: Json = response?.content?.['application/json']?.examples ?? {};
  return Object.values(examples).map((example) => deref(doc, example as Json)?.value?.code);
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.http.get('/api/docs-json')).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('resolves every $ref, wherever it sits (schemas, parameters, bodies, responses, headers, examples)', () => {
    const refs = refsOf(doc);
    const dangling = refs.filter(({ ref }) => resolveRef(doc, ref) === undefined);
    expect(dangling).toEqual([]);
    // The walk reaches refs in every part of the document that holds them.
    const kinds = new Set(refs.map(({ ref }) => ref.split('/').slice(0, 3).join('/')));
    expect([...kinds].sort()).toEqual(['#/components/examples', '#/components/headers', '#/components/schemas']);
    const placed = (pattern: RegExp) => refs.some(({ at }) => pattern.test(at));
    expect(placed(/\/requestBody\/content\/application\/json\/schema$/)).toBe(true);
    expect(placed(/\/responses\/404\/content\/application\/json\/examples\/\w+$/)).toBe(true);
    expect(placed(/\/responses\/429\/headers\/Retry-After$/)).toBe(true);
    expect(placed(/^#\/components\/schemas\/TaskSkillsDto\/properties\/skill_refs\/additionalProperties$/)).toBe(true);
    // And it would see a dangling one.
    const broken = structuredClone(doc);
    broken.paths['/api/tasks/{id}/skills'].get.responses['200'].content['application/json'].schema.$ref =
      '#/components/schemas/SkillRefDtoGone';
    expect(refsOf(broken).filter(({ ref }) => resolveRef(broken, ref) === undefined)).toHaveLength(1);
  });

  it('is exactly the committed openapi.json', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8'));
    expect(doc).toEqual(committed);
  });

  it('lists the package problem codes of docs/packages.md#problem-codes on every problem that validation and publishing answer', () => {
    const errors = [
      ...['ZIP_INVALID', 'ZIP_UNSAFE_PATH', 'ZIP_SYMLINK', 'ZIP_DUPLICATE_PATH', 'ZIP_ENCRYPTED'],
      ...['ZIP_TOO_MANY_ENTRIES', 'ZIP_ENTRY_TOO_LARGE', 'ZIP_TOO_LARGE_EXPANDED', 'ZIP_RATIO', 'ZIP_LAYOUT'],
      ...['SKILL_MD_MISSING', 'FRONTMATTER_MISSING', 'FRONTMATTER_INVALID', 'NAME_MISSING', 'NAME_INVALID'],
      ...['NAME_MISMATCH', 'DESCRIPTION_MISSING', 'DESCRIPTION_INVALID', 'COMPATIBILITY_INVALID'],
      ...['METADATA_INVALID', 'ALLOWED_TOOLS_INVALID', 'LICENSE_INVALID', 'REQUIRES_INVALID', 'SKILL_MD_TOO_LARGE'],
    ];
    const warnings = ['UNKNOWN_FIELD', 'BODY_LONG', 'METADATA_NOT_STRINGS', 'ALLOWED_TOOLS_LIST', 'DESCRIPTION_LONG'];
    // Imports from git only: a submodule left out (docs/publishing.md#importing-from-git).
    warnings.push('SUBMODULE_SKIPPED');
    const code = doc.components.schemas.ProblemDto.properties.code;
    const listed = deref(doc, code.allOf?.[0] ?? code);
    expect([...listed.enum].sort()).toEqual([...errors, ...warnings].sort());
    // The description says which codes reject a package and which are warnings.
    const [errorPart, warningPart] = code.description.split('In `warnings`');
    for (const c of errors) expect(errorPart).toContain(c);
    for (const c of warnings) expect(warningPart).toContain(c);
    // Both answers that carry problems use that schema.
    const report = doc.components.schemas.ValidationReportDto.properties;
    for (const list of [report.errors, report.warnings, doc.components.schemas.PublishedSkillDto.properties.warnings]) {
      expect(list.items.$ref).toBe('#/components/schemas/ProblemDto');
    }
  });

  it('names every operation stably (camelCase, unique), with a summary and one described tag: the pinned list', () => {
    const listed = operations(doc).map(({ method, path, op }) => {
      expect({
        at: `${method} ${path}`,
        summary: typeof op.summary === 'string' && op.summary.length > 10 && !op.summary.includes('`'),
      }).toEqual({
        at: `${method} ${path}`,
        summary: true,
      });
      expect({ at: `${method} ${path}`, tags: op.tags?.length }).toEqual({ at: `${method} ${path}`, tags: 1 });
      return `${method.toUpperCase()} ${path} ${op.operationId} ${op.tags[0]}`;
    });
    expect(listed.sort()).toEqual([...PINNED_OPERATIONS].sort());
    const ids = operations(doc).map(({ op }) => op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    // One tag per feature, each described, in the order the page shows them; none unused.
    const declared = (doc.tags as Json[]).map((tag) => tag.name);
    expect(declared).toEqual([
      'health',
      'users',
      'groups',
      'skills',
      'discovery',
      'ghosts',
      'bots',
      'teams',
      'subscriptions',
      'tasks',
      'resolution',
      'skill-bindings',
      'tool-policy',
      'wegent',
      'mcp',
      'audit',
      'metrics',
      'storage',
    ]);
    expect((doc.tags as Json[]).filter((tag) => !(tag.description?.length > 10))).toEqual([]);
    expect(new Set(operations(doc).map(({ op }) => op.tags[0]))).toEqual(new Set(declared));
  });

  it('declares the API-key schemes (opaque keys, no JWT) on every authenticated operation and none on health', () => {
    expect(doc.components.securitySchemes).toEqual({
      'api-key': expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      bearer: expect.objectContaining({
        type: 'http',
        scheme: 'bearer',
        bearerFormat: expect.stringMatching(/srk_.*srt_/),
      }),
    });
    for (const { method, path, op } of operations(doc)) {
      const expected = path.startsWith('/api/health') ? undefined : [{ 'api-key': [] }, { bearer: [] }];
      expect({ op: `${method} ${path}`, security: op.security }).toEqual({
        op: `${method} ${path}`,
        security: expected,
      });
    }
  });

  it('documents the errors the contract gives each operation, in the one error shape with an example of each code', () => {
    const missing: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      const id = op.operationId as string;
      const expected = [...(DOCUMENTED_ERRORS[id] ?? [])];
      if (op.security) expected.push([401, 'UNAUTHENTICATED'], [429, 'RATE_LIMITED'], [503, 'DATABASE_UNAVAILABLE']);
      if (op.requestBody?.content?.['application/json']) {
        expected.push([400, 'BAD_REQUEST'], [408, 'REQUEST_TIMEOUT'], [413, 'BODY_TOO_LARGE']);
      }
      if ((op.parameters as Json[] | undefined)?.some((p) => p.in === 'query'))
        expected.push([400, 'VALIDATION_FAILED']);
      if ((op.parameters as Json[] | undefined)?.some((p) => p.in === 'path')) expected.push([404, 'NOT_FOUND']);
      for (const [status, code] of expected) {
        if (!documentedCodes(doc, op, status).includes(code))
          missing.push(`${id} (${method} ${path}): ${status} ${code}`);
      }
    }
    expect(missing).toEqual([]);
    // Every table entry names a real operation (a renamed one cannot silently drop out of the check).
    const ids = new Set(operations(doc).map(({ op }) => op.operationId));
    expect(Object.keys(DOCUMENTED_ERRORS).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('gives every error answer the error schema, X-Request-Id, and examples whose code and status agree', () => {
    const wrong: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      for (const [statusText, raw] of Object.entries<Json>(op.responses)) {
        const status = Number(statusText);
        // 406 and 415 of the MCP endpoint are JSON-RPC errors written by the MCP transport.
        if (status < 400 || (path === '/api/mcp' && (status === 406 || status === 415))) continue;
        const at = `${method} ${path} ${status}`;
        const response = deref(doc, raw);
        const content = response.content?.['application/json'];
        const schema = content?.schema;
        const refs = schema?.oneOf ? schema.oneOf.map((s: Json) => s.$ref) : [schema?.$ref];
        if (!refs.includes(ERROR_SCHEMA_REF)) wrong.push(`${at}: schema`);
        if (!response.headers?.['X-Request-Id']) wrong.push(`${at}: X-Request-Id`);
        if (status === 429 && !response.headers?.['Retry-After']) wrong.push(`${at}: Retry-After`);
        const examples = Object.values<Json>(content?.examples ?? {}).map((e) => deref(doc, e).value);
        if (examples.length === 0) wrong.push(`${at}: no example`);
        for (const example of examples.filter((e) => e.code !== undefined || e.jsonrpc === undefined)) {
          // VERSION_REVOKED is 409 on a status change and 410 on the bytes of a revoked version.
          const usual = ERROR_STATUS[example.code as keyof typeof ERROR_STATUS];
          const expected = example.code === 'VERSION_REVOKED' && status === 410 ? 410 : usual;
          if (expected !== status || example.statusCode !== status) {
            wrong.push(`${at}: example ${example.code} answers ${example.statusCode}`);
          }
          if (!example.requestId || !example.error || !example.message)
            wrong.push(`${at}: example ${example.code} shape`);
          if (!response.description?.includes(`\`${example.code}\``))
            wrong.push(`${at}: ${example.code} not described`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('types every id as a positive 32-bit integer: path and query parameters, body and answer fields', () => {
    const ID = expect.objectContaining({ type: 'integer', format: 'int32', minimum: 1 });
    const seen: string[] = [];
    const wrong: string[] = [];
    const check = (at: string, schema: Json) => {
      seen.push(at);
      try {
        expect(schema).toEqual(ID);
      } catch {
        wrong.push(`${at}: ${JSON.stringify(schema)}`);
      }
    };
    for (const { method, path, op } of operations(doc)) {
      for (const p of (op.parameters as Json[] | undefined) ?? []) {
        // `path` (a file's) and `tag` (a tag name) are the only path parameters that are not ids.
        if (
          (p.in === 'path' && p.name !== 'path' && p.name !== 'tag') ||
          (p.in === 'query' && /(^|_)id$/.test(p.name))
        ) {
          check(`${method.toUpperCase()} ${path} ${p.in} ${p.name}`, p.schema);
        }
      }
    }
    // Not 32-bit ids: event ids are 64-bit (bigint), JSON-RPC ids are the client's own, Wegent labels
    // carry the id as a string, and a request id is a header value.
    const exempt = new Set([
      'AuditEventDto.id',
      'AuditEventDto.request_id',
      'JsonRpcRequestDto.id',
      'JsonRpcResponseDto.id',
      'WegentSkillLabelsDto.id',
    ]);
    const walk = (at: string, schema: Json | undefined): void => {
      for (const [name, prop] of Object.entries<Json>(schema?.properties ?? {})) {
        const here = `${at}.${name}`;
        if (/(^|_)id$/.test(name) && !exempt.has(here)) check(here, prop);
        walk(here, prop);
        walk(`${here}[]`, prop.items);
      }
    };
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) walk(name, schema);
    expect(wrong).toEqual([]);
    expect(seen).toEqual(
      expect.arrayContaining([
        'GET /api/tasks/{id}/skills path id',
        'DELETE /api/users/{id}/api-keys/{keyId} path keyId',
        'PUT /api/groups/{id}/members/{userId} path userId',
        'GET /api/v1/kinds/skills query task_id',
        'GET /api/audit-events query actor_user_id',
        'SkillRefDto.skill_id',
        'BotBodyDto.ghost_id',
        'TeamMemberDto.bot_id',
        'CreateTaskDto.team_id',
        'GhostSkillRefInputDto.skill_id',
        'SkillDto.id',
      ]),
    );
  });

  it('opens the upload form on a personal skill: public defaults to false, namespace to default', async () => {
    const form = doc.paths['/api/skills'].post.requestBody.content['multipart/form-data'].schema;
    expect(form.required).toEqual(['file']);
    expect(form.properties.namespace).toEqual(expect.objectContaining({ type: 'string', default: 'default' }));
    // Swagger UI preselects the default, or else the first value of an enum.
    expect(form.properties.public.default ?? form.properties.public.enum?.[0]).toBe('false');
    const res = await t.http
      .post('/api/skills')
      .set(as(ADMIN_KEY))
      .field('namespace', form.properties.namespace.default)
      .field('public', form.properties.public.default)
      .attach('file', skillZip('form-default'), { filename: 'form-default.zip', contentType: 'application/zip' });
    expect({ status: res.status, namespace: res.body.namespace, is_public: res.body.is_public }).toEqual({
      status: 201,
      namespace: 'default',
      is_public: false,
    });
  });

  it('carries an example for every request body, and each example is a valid request', async () => {
    const helloWorld = await publishSkill(t, ADMIN_KEY, 'hello-world');
    // A public skill: one that a user and a group alike may bind.
    const bindable = await publishSkill(t, ADMIN_KEY, 'bindable', { public: 'true' });
    // Ids of what the examples themselves created, by collection; ids in bodies become real ones.
    const created: Record<string, number> = {};
    const bodyIds = (): Record<string, number | undefined> => ({
      skill_id: helloWorld.id,
      ghost_id: created.ghosts,
      bot_id: created.bots,
      team_id: created.teams,
      task_id: created.tasks,
    });
    const withRealIds = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(withRealIds);
      if (!value || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.entries(value).map(([key, v]) => {
          if (typeof v === 'number' && key in bodyIds()) {
            const id = bodyIds()[key];
            if (id === undefined) throw new Error(`no ${key} yet for an example`);
            return [key, id];
          }
          return [key, withRealIds(v)];
        }),
      );
    };
    const realPath = (path: string): string =>
      path
        .replace(/^\/api\/([a-z-]+)\/\{id\}/, (_, collection: string) => `/api/${collection}/${created[collection]}`)
        .replace('{userId}', String(created.users))
        .replace('{skillId}', String(bindable.id))
        .replace('{version}', '1')
        .replace('{tag}', 'stable');

    const sent: Array<{ op: string; example: string; status: number; body: unknown }> = [];
    // Collections first (in document order), so every path id names something created already,
    // whatever order the routes are registered in.
    const ordered = [...operations(doc)].sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
    for (const { method, path, op } of ordered) {
      const content = op.requestBody?.content as Json | undefined;
      if (!content) continue;
      const url = realPath(path);
      expect({ op: op.operationId, url: url.includes('undefined') }).toEqual({ op: op.operationId, url: false });
      if (content['multipart/form-data']) {
        const form = content['multipart/form-data'].schema;
        const req = t.http[method as 'post'](url).set(as(ADMIN_KEY));
        for (const [name, prop] of Object.entries<Json>(form.properties)) {
          if (prop.format === 'binary') continue;
          const value = prop.example ?? prop.default;
          expect({ op: op.operationId, field: name, example: value !== undefined }).toEqual({
            op: op.operationId,
            field: name,
            example: true,
          });
          void req.field(name, String(value));
        }
        const res = await req.attach('file', skillZip('example-skill'), {
          filename: 'x.zip',
          contentType: 'application/zip',
        });
        sent.push({ op: op.operationId, example: 'form', status: res.status, body: res.body });
        if (path === '/api/skills' && res.status === 201) created.skills = res.body.id;
        continue;
      }
      const examples = Object.entries<Json>(content['application/json']?.examples ?? {});
      expect({ op: op.operationId, examples: examples.length > 0 }).toEqual({ op: op.operationId, examples: true });
      for (const [name, example] of examples) {
        const req = t.http[method as 'post' | 'put'](url).set(as(ADMIN_KEY));
        if (path === '/api/mcp') void req.set('Accept', 'application/json, text/event-stream');
        const res = await req.send(withRealIds(deref(doc, example).value) as object);
        sent.push({ op: op.operationId, example: name, status: res.status, body: res.body });
        const collection = /^\/api\/([a-z-]+)$/.exec(path)?.[1];
        if (collection && method === 'post' && res.status === 201) created[collection] ??= res.body.id;
      }
    }
    // An import's body is valid when it reaches the allowlist: the app under test allows no git host.
    const refusedHost = (s: { op: string; body: unknown }) =>
      s.op === 'importSkills' && (s.body as { code?: string })?.code === 'GIT_HOST_NOT_ALLOWED';
    const failed = sent.filter((s) => (s.status < 200 || s.status >= 300) && !refusedHost(s));
    expect(failed).toEqual([]);
    // Every operation with a body was sent.
    const withBody = operations(doc)
      .filter(({ op }) => op.requestBody)
      .map(({ op }) => op.operationId);
    expect(new Set(sent.map((s) => s.op))).toEqual(new Set(withBody));
    expect(withBody.length).toBeGreaterThanOrEqual(17);
  });

  it('sends examples of required query parameters that are valid requests', async () => {
    const checked: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      const required = ((op.parameters as Json[] | undefined) ?? []).filter((p) => p.in === 'query' && p.required);
      if (method !== 'get' || required.length === 0 || path.includes('{')) continue;
      const query = Object.fromEntries(required.map((p) => [p.name, p.example ?? p.schema?.example]));
      expect({ op: op.operationId, examples: Object.values(query).every((v) => v !== undefined) }).toEqual({
        op: op.operationId,
        examples: true,
      });
      const res = await t.http.get(path).query(query).set(as(ADMIN_KEY));
      expect({ op: op.operationId, status: res.status }).toEqual({ op: op.operationId, status: 200 });
      checked.push(op.operationId);
    }
    expect(checked.sort()).toEqual(['listSkillsWegent', 'searchSkills']);
  });

  it('sets Swagger UI up for operators: authorization kept, operation ids shown, forms open', async () => {
    const init = await t.http.get('/api/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    for (const option of ['"persistAuthorization": true', '"displayOperationId": true', '"tryItOutEnabled": true']) {
      expect(init.text).toContain(option);
    }
  });
});
