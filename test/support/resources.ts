// Ghosts, bots, teams and subscriptions through the HTTP API, for e2e scenarios.
import request from 'supertest';
import { withClient } from './database';
import { Caller, keyOf } from './skills';
import { as, TestApp } from './test-app';

export type Resource = 'ghosts' | 'bots' | 'teams' | 'subscriptions';
export const RESOURCE_TABLES: readonly Resource[] = ['ghosts', 'bots', 'teams', 'subscriptions'];

export function post(t: TestApp, caller: Caller, resource: Resource, body: object): Promise<request.Response> {
  return t.http
    .post(`/api/${resource}`)
    .set(as(keyOf(caller)))
    .send(body);
}

export function put(
  t: TestApp,
  caller: Caller,
  resource: Resource,
  id: number,
  body: object,
): Promise<request.Response> {
  return t.http
    .put(`/api/${resource}/${id}`)
    .set(as(keyOf(caller)))
    .send(body);
}

export function get(t: TestApp, caller: Caller, path: string): Promise<request.Response> {
  return t.http.get(`/api/${path}`).set(as(keyOf(caller)));
}

export function del(t: TestApp, caller: Caller, resource: Resource, id: number): Promise<request.Response> {
  return t.http.delete(`/api/${resource}/${id}`).set(as(keyOf(caller)));
}

/** POSTs `body` (expecting 201) and returns the created resource. */
export async function create(
  t: TestApp,
  caller: Caller,
  resource: Resource,
  body: object,
): Promise<Record<string, unknown> & { id: number }> {
  const res = await post(t, caller, resource, body);
  if (res.status !== 201) throw new Error(`creating ${resource}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const createGhost = (t: TestApp, caller: Caller, body: object) => create(t, caller, 'ghosts', body);
export const createBot = (t: TestApp, caller: Caller, body: object) => create(t, caller, 'bots', body);
export const createTeam = (t: TestApp, caller: Caller, body: object) => create(t, caller, 'teams', body);
export const createSubscription = (t: TestApp, caller: Caller, body: object) =>
  create(t, caller, 'subscriptions', body);

/** A bot on a fresh empty ghost, both named `name`, in `namespace`. */
export async function createBotWithGhost(
  t: TestApp,
  caller: Caller,
  name: string,
  namespace = 'default',
): Promise<{ ghostId: number; botId: number }> {
  const ghost = await createGhost(t, caller, { name, namespace });
  const bot = await createBot(t, caller, { name, namespace, ghost_id: ghost.id });
  return { ghostId: ghost.id, botId: bot.id };
}

/** Row counts of the resource tables (deleted rows included), to show a rejected write stored nothing. */
export function resourceRowCounts(t: TestApp): Promise<Record<Resource, number>> {
  return withClient(t.db.url, async (c) => {
    const counts = {} as Record<Resource, number>;
    for (const table of RESOURCE_TABLES) {
      counts[table] = Number((await c.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
    }
    return counts;
  });
}

/** A group `name` owned by `owner`, with the other members at their roles. */
export async function createGroup(
  t: TestApp,
  owner: Caller,
  name: string,
  members: Array<[{ id: number }, 'Owner' | 'Maintainer' | 'Developer' | 'Reporter']>,
): Promise<number> {
  const group = await t.http
    .post('/api/groups')
    .set(as(keyOf(owner)))
    .send({ name });
  if (group.status !== 201) throw new Error(`creating group ${name}: ${group.status} ${JSON.stringify(group.body)}`);
  for (const [user, role] of members) {
    const res = await t.http
      .put(`/api/groups/${group.body.id}/members/${user.id}`)
      .set(as(keyOf(owner)))
      .send({ role });
    if (res.status !== 200) throw new Error(`adding ${user.id} to ${name}: ${res.status}`);
  }
  return group.body.id;
}

/** The body of an error with its request id blanked, to compare two answers. */
export function sameBody(res: request.Response): Record<string, unknown> {
  return { ...res.body, requestId: '' };
}
