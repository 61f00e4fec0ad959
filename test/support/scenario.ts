// Building resolution scenarios through the public API: groups, skills, ghosts, bots, teams,
// subscriptions and tasks, each call checked for its success status.
import request from 'supertest';
import { createBot, createGhost, createGroup, createTeam } from './resources';
import { Caller, keyOf, publishSkill } from './skills';
import { as, TestApp } from './test-app';
import { skillZip } from './zip-builder';

async function ok(res: Promise<request.Response> | request.Response, status: number, what: string): Promise<any> {
  const r = await res;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export class Scenario {
  constructor(readonly t: TestApp) {}

  post(caller: Caller, path: string, body: object, status = 201): Promise<any> {
    return ok(
      this.t.http
        .post(path)
        .set(as(keyOf(caller)))
        .send(body),
      status,
      `POST ${path}`,
    );
  }

  put(caller: Caller, path: string, body: object, status = 200): Promise<any> {
    return ok(
      this.t.http
        .put(path)
        .set(as(keyOf(caller)))
        .send(body),
      status,
      `PUT ${path}`,
    );
  }

  get(caller: Caller, path: string, status = 200): Promise<any> {
    return ok(this.t.http.get(path).set(as(keyOf(caller))), status, `GET ${path}`);
  }

  group(owner: Caller, name: string, members: Parameters<typeof createGroup>[3] = []): Promise<number> {
    return createGroup(this.t, owner, name, members);
  }

  /** A skill in a scope: `default` personal, a group name, or `public`. */
  async skill(caller: Caller, name: string, scope = 'default', description = `${name} in ${scope}`): Promise<any> {
    const fields: Record<string, string> = scope === 'public' ? { public: 'true' } : { namespace: scope };
    return publishSkill(this.t, caller, name, fields, { description });
  }

  async newVersion(caller: Caller, skillId: number, name: string, description: string): Promise<any> {
    return ok(
      this.t.http
        .post(`/api/skills/${skillId}/versions`)
        .set(as(keyOf(caller)))
        .attach('file', skillZip(name, { description }), 'skill.zip'),
      201,
      'new version',
    );
  }

  ghost(caller: Caller, body: object): Promise<any> {
    return createGhost(this.t, caller, body);
  }

  bot(caller: Caller, name: string, ghostId: number, namespace = 'default'): Promise<any> {
    return createBot(this.t, caller, { name, namespace, ghost_id: ghostId });
  }

  team(caller: Caller, name: string, botIds: number[], namespace = 'default'): Promise<any> {
    return createTeam(this.t, caller, { name, namespace, members: botIds.map((bot_id) => ({ bot_id })) });
  }

  /** A team of one bot whose ghost lists `skills` (and `preload`), in `namespace`. */
  async teamWithGhost(
    caller: Caller,
    name: string,
    skills: string[],
    preload: string[] = [],
    namespace = 'default',
    refs: object = {},
  ): Promise<any> {
    const ghost = await this.ghost(caller, {
      name: `${name}-ghost`,
      namespace,
      skills,
      preload_skills: preload,
      skill_refs: refs,
    });
    const bot = await this.bot(caller, `${name}-bot`, ghost.id, namespace);
    const team = await this.team(caller, name, [bot.id], namespace);
    return { ghost, bot, team };
  }

  task(
    caller: Caller,
    body: { team_id: number; title?: string; skill_selection?: object[]; labels?: Record<string, string> },
  ): Promise<any> {
    return this.post(caller, '/api/tasks', body);
  }

  skills(caller: Caller, taskId: number, status = 200): Promise<any> {
    return this.get(caller, `/api/tasks/${taskId}/skills`, status);
  }
}
