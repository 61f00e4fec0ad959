// Building resolution scenarios through the public API: groups, skills, ghosts, bots, teams,
// subscriptions and tasks, each call checked for its success status.
import request from 'supertest';
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

  get(caller: Caller, path: string, status = 200): Promise<any> {
    return ok(this.t.http.get(path).set(as(keyOf(caller))), status, `GET ${path}`);
  }

  async group(owner: Caller, name: string, members: Array<[{ id: number }, string]> = []): Promise<number> {
    const group = await this.post(owner, '/api/groups', { name });
    for (const [user, role] of members) {
      await ok(
        this.t.http
          .put(`/api/groups/${group.id}/members/${user.id}`)
          .set(as(keyOf(owner)))
          .send({ role }),
        200,
        'member',
      );
    }
    return group.id;
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

  ghost(
    caller: Caller,
    body: {
      name: string;
      namespace?: string;
      skills?: string[];
      preload_skills?: string[];
      skill_refs?: object;
      preload_skill_refs?: object;
    },
  ): Promise<any> {
    return this.post(caller, '/api/ghosts', body);
  }

  bot(caller: Caller, name: string, ghostId: number, namespace = 'default'): Promise<any> {
    return this.post(caller, '/api/bots', { name, namespace, ghost_id: ghostId });
  }

  team(caller: Caller, name: string, botIds: number[], namespace = 'default'): Promise<any> {
    return this.post(caller, '/api/teams', { name, namespace, members: botIds.map((bot_id) => ({ bot_id })) });
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
