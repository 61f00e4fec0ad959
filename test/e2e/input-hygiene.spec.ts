// Input hygiene (docs/limits.md#hostile-input) on every route: U+0000 or a lone surrogate in any string of a JSON
// body (keys too), a form field or a query parameter is 400 VALIDATION_FAILED naming the field,
// bytes that are not UTF-8 JSON are 400 BAD_REQUEST, path ids stay 404, and nothing is stored.
// The routes and their fields come from the served OpenAPI document, so a new route is covered.
import request from 'supertest';
import { withClient } from '../support/database';
import { createBotWithGhost, createGroup, createSubscription, createTeam } from '../support/resources';
import { listen, rawRequest } from '../support/raw-http';
import { publishSkill } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp } from '../support/test-app';
import { skillZip } from '../support/zip-builder';
import { childPath } from '../../src/common/input-hygiene';

type Schema = {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  format?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
};
interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}
type Step = string | number;
/** Where a string sits in a sample body: a value, or the key of a map entry. */
interface Spot {
  at: Step[];
  key: boolean;
}

const NUL = 'a\u0000b';
const LONE = 'a\uD800b';
const MAP_KEY = 'sample-key';

/** A sample body for `schema`, every optional property included, with each place a string sits. */
function sample(doc: { components: { schemas: Record<string, Schema> } }, root: Schema) {
  const spots: Spot[] = [];
  const build = (schema: Schema, at: Step[], depth: number): unknown => {
    if (schema.$ref) return build(doc.components.schemas[schema.$ref.split('/').pop()!], at, depth);
    if (schema.allOf?.length) return build(schema.allOf[0], at, depth);
    if (depth > 6) return null;
    if (schema.type === 'array' || schema.items) return [build(schema.items ?? {}, [...at, 0], depth + 1)];
    if (schema.type === 'object' || schema.properties || schema.additionalProperties) {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        value[name] = build(property, [...at, name], depth + 1);
      }
      if (typeof schema.additionalProperties === 'object') {
        spots.push({ at: [...at, MAP_KEY], key: true });
        value[MAP_KEY] = build(schema.additionalProperties, [...at, MAP_KEY], depth + 1);
      }
      return value;
    }
    if (schema.type === 'string' && schema.format !== 'binary') {
      spots.push({ at, key: false });
      return typeof schema.enum?.[0] === 'string' ? schema.enum[0] : 'text';
    }
    if (schema.type === 'integer' || schema.type === 'number') return 1;
    if (schema.type === 'boolean') return false;
    return 'text';
  };
  return { body: build(root, [], 0), spots };
}

/** `body` with the string at `spot` (or its key) replaced by `bad`. */
function poisoned(body: unknown, spot: Spot, bad: string): unknown {
  const copy = structuredClone(body) as Record<Step, unknown>;
  let parent = copy;
  for (const step of spot.at.slice(0, -1)) parent = parent[step] as Record<Step, unknown>;
  const last = spot.at[spot.at.length - 1];
  if (spot.key) {
    parent[bad] = parent[last];
    delete parent[last];
  } else {
    parent[last] = bad;
  }
  return copy;
}

function pathOf(steps: Step[]): string {
  return steps.reduce<string>((path, step) => childPath(path, step), '');
}

function expectedMessage(spot: Spot, bad: string): string {
  const reason = bad === NUL ? 'U+0000' : 'a lone surrogate';
  if (!spot.key) return `${pathOf(spot.at)} must not contain ${reason}`;
  return `${pathOf([...spot.at.slice(0, -1), bad])}: a key must not contain ${reason}`;
}

const TABLES = [
  'users',
  'api_keys',
  'groups',
  'group_members',
  'skills',
  'skill_versions',
  'ghosts',
  'bots',
  'teams',
  'subscriptions',
  'tasks',
  'task_tokens',
  'background_executions',
];

function rowCounts(t: TestApp): Promise<Record<string, number>> {
  return withClient(t.db.url, async (c) => {
    const counts: Record<string, number> = {};
    for (const table of TABLES) counts[table] = Number((await c.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
    return counts;
  });
}

describe('input hygiene on every route (docs/limits.md#hostile-input)', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  let ids: Record<string, number | string>;

  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.http.get('/api/docs-json')).body;
    const me = (await t.http.get('/api/users/me').set(as(ADMIN_KEY))).body as { id: number };
    const alice = await createUser(t, 'alice');
    const key = await t.http.post(`/api/users/${me.id}/api-keys`).set(as(ADMIN_KEY));
    const group = await createGroup(t, ADMIN_KEY, 'hygiene', [[alice, 'Developer']]);
    const skill = await publishSkill(t, ADMIN_KEY, 'hygiene-skill');
    const { ghostId, botId } = await createBotWithGhost(t, ADMIN_KEY, 'hygiene');
    const team = await createTeam(t, ADMIN_KEY, { name: 'hygiene', members: [{ bot_id: botId }] });
    const subscription = await createSubscription(t, ADMIN_KEY, { name: 'hygiene', team_id: team.id });
    const task = await t.http.post('/api/tasks').set(as(ADMIN_KEY)).send({ team_id: team.id });
    ids = {
      users: me.id,
      keyId: key.body.id,
      groups: group,
      userId: alice.id,
      skills: skill.id,
      ghosts: ghostId,
      bots: botId,
      teams: team.id,
      subscriptions: subscription.id,
      tasks: task.body.id,
      // The single-file route's path: a file every package has.
      path: 'SKILL.md',
      // The skill's first version, and a tag name (docs/resolution.md#version-lifecycle).
      version: 1,
      tag: 'stable',
      // Skill bindings name the bound skill by id.
      skillId: skill.id,
    };
  });
  afterAll(async () => {
    await t.close();
  });

  /** A path template with real ids, so a request that slipped through would reach the database. */
  function fill(template: string): string {
    const segments = template.split('/');
    return segments
      .map((segment, i) => {
        const param = /^\{(\w+)\}$/.exec(segment)?.[1];
        if (!param) return segment;
        // `{id}` names the resource before it (`/api/v1/tasks/{id}/skills`: a task); others by name.
        const id = param === 'id' ? ids[segments[i - 1]] : ids[param];
        if (id === undefined) throw new Error(`no id for ${param} in ${template}`);
        return String(id);
      })
      .join('/');
  }

  function operations(): Array<{ method: string; template: string; op: Operation }> {
    return Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, op]) => ({ method, template, op })),
    );
  }

  function send(method: string, url: string): request.Test {
    return (t.http as unknown as Record<string, (url: string) => request.Test>)[method](url).set(as(ADMIN_KEY));
  }

  it('every string of every JSON body, values and keys, with U+0000 or a lone surrogate: 400 naming it', async () => {
    const before = await rowCounts(t);
    const seen: string[] = [];
    for (const { method, template, op } of operations()) {
      const schema = op.requestBody?.content['application/json']?.schema;
      const { body, spots } = schema
        ? sample(doc, schema)
        : { body: { note: 'text' }, spots: [{ at: ['note'], key: false }] };
      // Bodies sent where none is expected are parsed too: a GET is the one method left alone.
      if (method === 'get') continue;
      for (const spot of spots) {
        for (const bad of [NUL, LONE]) {
          const res = await send(method, fill(template)).send(poisoned(body, spot, bad) as object);
          const what = `${method.toUpperCase()} ${template} ${pathOf(spot.at)}${spot.key ? ' (key)' : ''}`;
          expect({ what, status: res.status, code: res.body.code }).toEqual({
            what,
            status: 400,
            code: 'VALIDATION_FAILED',
          });
          expect({ what, message: res.body.message }).toEqual({ what, message: [expectedMessage(spot, bad)] });
        }
        seen.push(`${method} ${template} ${pathOf(spot.at)}`);
      }
    }
    // The table reached the fields the review found crashing.
    expect(seen).toEqual(
      expect.arrayContaining([
        'post /api/ghosts skills[0]',
        'post /api/ghosts skill_refs.sample-key.namespace',
        'post /api/tasks labels.sample-key',
        'post /api/tasks skill_selection[0].name',
        'post /api/subscriptions skill_refs[0].namespace',
        'post /api/tasks/{id}/execution-requests additional_skills[0].namespace',
        'post /api/users user_name',
        'post /api/groups name',
      ]),
    );
    expect(await rowCounts(t)).toEqual(before);
  });

  it('every query parameter (declared or not) with U+0000 or an encoded surrogate: 400 naming it', async () => {
    const before = await rowCounts(t);
    let checked = 0;
    for (const { method, template, op } of operations()) {
      const names = [...(op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name), 'undeclared'];
      for (const name of names) {
        for (const [raw, says] of [
          ['a%00b', 'must not contain U+0000'],
          ['a%ED%A0%80b', 'must be valid UTF-8 (no lone surrogates)'],
        ]) {
          const res = await send(method, `${fill(template)}?${name}=${raw}`);
          const what = `${method.toUpperCase()} ${template}?${name}`;
          expect({ what, status: res.status, code: res.body.code, message: res.body.message }).toEqual({
            what,
            status: 400,
            code: 'VALIDATION_FAILED',
            message: [`query parameter ${name} ${says}`],
          });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(await rowCounts(t)).toEqual(before);
  });

  it('form fields of the multipart routes with U+0000: 400 naming the field, nothing stored', async () => {
    const before = await rowCounts(t);
    for (const { method, template, op } of operations()) {
      const schema = op.requestBody?.content['multipart/form-data']?.schema;
      if (!schema) continue;
      const fields = [
        ...Object.entries(schema.properties ?? {})
          .filter(([, s]) => s.format !== 'binary')
          .map(([name]) => name),
        'undeclared',
      ];
      for (const field of fields) {
        const res = await send(method, fill(template))
          .field(field, NUL)
          .attach('file', skillZip('form-check'), { filename: 'skill.zip', contentType: 'application/zip' });
        const what = `${method.toUpperCase()} ${template} ${field}`;
        expect({ what, status: res.status, code: res.body.code, message: res.body.message }).toEqual({
          what,
          status: 400,
          code: 'VALIDATION_FAILED',
          message: [`${field} must not contain U+0000`],
        });
      }
    }
    expect(await rowCounts(t)).toEqual(before);
  });

  it('path ids holding U+0000 answer 404 on every route with a path parameter', async () => {
    for (const { method, template } of operations()) {
      if (!template.includes('{')) continue;
      const url = fill(template.replace(/\{\w+\}/, '%00'));
      const res = await send(method, url);
      expect({ route: `${method} ${template}`, status: res.status }).toEqual({
        route: `${method} ${template}`,
        status: 404,
      });
    }
  });

  it('selection labels carry their names as JSON text: a U+0000 or lone surrogate escaped inside is 400 too', async () => {
    const before = await rowCounts(t);
    const cases: Array<[Record<string, string>, string]> = [
      [{ additionalSkills: '["a\\u0000"]' }, 'labels.additionalSkills[0] must not contain U+0000'],
      [{ additionalSkills: '["ok","\\udc00"]' }, 'labels.additionalSkills[1] must not contain a lone surrogate'],
      [
        { requestedSkillRefs: '[{"name":"a\\u0000","namespace":"default","is_public":false}]' },
        'labels.requestedSkillRefs[0].name must not contain U+0000',
      ],
    ];
    for (const [labels, message] of cases) {
      const res = await t.http.post('/api/tasks').set(as(ADMIN_KEY)).send({ team_id: ids.teams, labels });
      expect(expectError(res, 400, 'VALIDATION_FAILED').message).toEqual([message]);
    }
    expect(await rowCounts(t)).toEqual(before);
  });

  it('a body that is not UTF-8 JSON is 400 BAD_REQUEST: invalid bytes, an encoded surrogate, another charset', async () => {
    const port = await listen(t);
    const before = await rowCounts(t);
    const post = (body: Buffer, type = 'application/json') =>
      rawRequest(port, {
        method: 'POST',
        path: '/api/ghosts',
        headers: { ...as(ADMIN_KEY), 'content-type': type },
        body,
      });
    const bodies: Array<[Buffer, string?]> = [
      [Buffer.from('{"name":"a\xffb"}', 'latin1')],
      [Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')])],
      [Buffer.from('{"name":"ok"}', 'utf16le'), 'application/json; charset=utf-16le'],
    ];
    for (const [bytes, type] of bodies) {
      const res = await post(bytes, type);
      expect({ status: res.status, code: res.body?.code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
    }
    // The same kind of name in valid UTF-8 is stored as sent.
    const ok = await post(Buffer.from('{"name":"caf\u00e9 \u{1F600}"}', 'utf8'));
    expect({ status: ok.status, name: ok.body.name }).toEqual({ status: 201, name: 'caf\u00e9 \u{1F600}' });
    expect(await rowCounts(t)).toEqual({ ...before, ghosts: before.ghosts + 1 });
  });

  it('a package whose frontmatter holds U+0000 is refused as SKILL_INVALID, not a database error', async () => {
    const zip = skillZip('nul-meta', { frontmatter: 'name: nul-meta\ndescription: "bad \\0 text"' });
    const res = await t.http
      .post('/api/skills')
      .set(as(ADMIN_KEY))
      .attach('file', zip, { filename: 'skill.zip', contentType: 'application/zip' });
    const body = expectError(res, 400, 'SKILL_INVALID');
    expect(body.details).toEqual(
      expect.objectContaining({ errors: [expect.objectContaining({ code: 'FRONTMATTER_INVALID' })] }),
    );
  });

  it('numbers past 32 bits in a query are 400, not a database range error', async () => {
    const res = await t.http.get(`/api/skills/${ids.skills}/manifest?version=99999999999`).set(as(ADMIN_KEY));
    expectError(res, 400, 'VALIDATION_FAILED');
  });
});
