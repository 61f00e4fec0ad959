// Wegent's own clients against the service, step by step: the sandbox manager
// (executor_manager/services/sandbox/skill_sync.py) and the executor (executor/src/services/
// api_client.rs: fetch_task_skills, SkillDownloader) with a task token, through the real app.
import { createHash } from 'node:crypto';
import request from 'supertest';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { binary, sha256 } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

/** What the executor deserializes (`TaskSkillsInfo`): exactly these fields, with these types. */
interface TaskSkillsInfo {
  task_id: number;
  team_id: number | null;
  team_namespace: string | null;
  skills: string[];
  preload_skills: string[];
  skill_refs: Record<string, Record<string, unknown>>;
  preload_skill_refs: Record<string, Record<string, unknown>>;
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isObject = (v: unknown): v is Record<string, Record<string, unknown>> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** serde's reading of the body: a field of the wrong type fails the whole parse, other fields are ignored. */
function parseTaskSkillsInfo(body: Record<string, unknown>): TaskSkillsInfo {
  const { task_id, team_id, team_namespace, skills, preload_skills, skill_refs, preload_skill_refs } = body;
  if (!Number.isSafeInteger(task_id)) throw new Error('task_id is not an integer');
  if (team_id !== null && !Number.isSafeInteger(team_id)) throw new Error('team_id is not an integer or null');
  if (team_namespace !== null && typeof team_namespace !== 'string') throw new Error('team_namespace is not a string');
  if (!isStringList(skills) || !isStringList(preload_skills)) throw new Error('skill lists are not string lists');
  if (!isObject(skill_refs) || !isObject(preload_skill_refs)) throw new Error('ref maps are not objects');
  return {
    task_id: task_id as number,
    team_id: team_id as number | null,
    team_namespace,
    skills,
    preload_skills,
    skill_refs,
    preload_skill_refs,
  };
}

/** The executor's `value_i64`: an integer, or a string of one. */
function valueI64(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return undefined;
}

const hashOf = (bytes: Buffer): string => `sha256:${sha256(bytes)}`;

describe('Wegent executors and sandbox managers against the service (docs/api.md#wegent-routes)', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let carol: TestUser;
  let docWriter: any;
  let pdfTools: any;
  let shellHelper: any;
  let team: any;
  let task: any;
  let otherTask: any;
  let token: string;
  const trace: string[] = [];

  /** A GET as Wegent sends it: `{base}{path}` with `Authorization: Bearer <task token>`. */
  async function wegentGet(path: string, headers: Record<string, string> = {}): Promise<request.Response> {
    const res = await t.http.get(path).set(as(token)).set(headers).buffer().parse(binary);
    trace.push(`GET ${path}${headers['If-None-Match'] ? ' (If-None-Match)' : ''} -> ${res.status}`);
    return res;
  }
  const json = (res: request.Response): any => JSON.parse((res.body as Buffer).toString('utf8'));

  async function mint(taskId: number, body: object = {}): Promise<string> {
    const res = await t.http.post(`/api/tasks/${taskId}/tokens`).set(as(alice.key)).send(body);
    expect(res.status).toBe(201);
    return res.body.token;
  }

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    [alice, carol] = await Promise.all(['alice', 'carol'].map((n) => createUser(t, n)));
    await s.group(alice, 'wegent-team');
    docWriter = await s.skill(alice, 'doc-writer', 'wegent-team', 'first');
    docWriter = await s.newVersion(alice, docWriter.id, 'doc-writer', 'second');
    pdfTools = await s.skill(ADMIN_KEY, 'pdf-tools', 'public');
    shellHelper = await s.skill(alice, 'shell-helper', 'default');
    // A ghost ref that no longer resolves: its skill is deleted, and a public skill of the same
    // name exists, which a client that guessed by name would wrongly take.
    const retired = await s.skill(alice, 'retired', 'wegent-team');
    await s.skill(ADMIN_KEY, 'retired', 'public');
    const writer = await s.ghost(alice, {
      name: 'writer',
      namespace: 'wegent-team',
      skills: ['doc-writer', 'pdf-tools', 'retired'],
      preload_skills: ['pdf-tools'],
    });
    const operator = await s.ghost(alice, {
      name: 'operator',
      namespace: 'wegent-team',
      skills: ['shell-helper'],
      preload_skills: ['shell-helper'],
    });
    const bots = [
      await s.bot(alice, 'writer-bot', writer.id, 'wegent-team'),
      await s.bot(alice, 'operator-bot', operator.id, 'wegent-team'),
    ];
    team = await s.team(
      alice,
      'wegent',
      bots.map((b) => b.id),
      'wegent-team',
    );
    expect((await t.http.delete(`/api/skills/${retired.id}?force=true`).set(as(alice.key))).status).toBe(204);
    task = await s.task(alice, { team_id: team.id, title: 'sandbox' });
    otherTask = await s.task(alice, { team_id: team.id, title: 'other' });
    token = await mint(task.id);
  });
  afterAll(async () => {
    if (process.env.WEGENT_COMPAT_TRACE) process.stdout.write(`${trace.join('\n')}\n`);
    await t.close();
  });

  it('a sandbox start: resolve, pick each ref, download, verify the hash, revalidate', async () => {
    // 1. skill_sync.resolve / fetch_task_skills: any status but 200 aborts the sandbox start.
    const res = await wegentGet(`/api/v1/tasks/${task.id}/skills`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const info = parseTaskSkillsInfo(json(res));
    expect(info).toEqual({
      task_id: task.id,
      team_id: team.id,
      team_namespace: 'wegent-team',
      skills: ['doc-writer', 'pdf-tools', 'retired', 'shell-helper'],
      preload_skills: ['pdf-tools', 'shell-helper'],
      skill_refs: {
        'doc-writer': expect.objectContaining({ skill_id: docWriter.id, namespace: 'wegent-team', version: 2 }),
        'pdf-tools': expect.objectContaining({ skill_id: pdfTools.id, namespace: 'default', is_public: true }),
        'shell-helper': expect.objectContaining({ skill_id: shellHelper.id, namespace: 'default', is_public: false }),
      },
      preload_skill_refs: {
        'pdf-tools': expect.objectContaining({ skill_id: pdfTools.id }),
        'shell-helper': expect.objectContaining({ skill_id: shellHelper.id }),
      },
    });
    const { task_id, team_id, team_namespace, skills, preload_skills } = info;
    trace.push(`  ${JSON.stringify({ task_id, team_id, team_namespace, skills, preload_skills })}`);
    trace.push(
      `  refs: ${Object.keys(info.skill_refs).join(', ')}; preload refs: ${Object.keys(info.preload_skill_refs).join(', ')}`,
    );

    const namespace = info.team_namespace ?? 'default';
    const deployed: Record<string, string> = {};
    for (const name of info.skills) {
      // 2. SkillDownloader.resolve_skill: the preload ref first, then the plain one, else the name query.
      const ref = info.preload_skill_refs[name] ?? info.skill_refs[name];
      let skillId = ref ? valueI64(ref.skill_id) : undefined;
      let skillNamespace = ref && typeof ref.namespace === 'string' ? ref.namespace : namespace;
      let expectedHash = ref ? (ref.content_hash as string) : undefined;
      if (skillId === undefined) {
        const query = await wegentGet(
          `/api/v1/kinds/skills?name=${name}&namespace=${namespace}&task_id=${info.task_id}`,
        );
        expect(query.status).toBe(200);
        const item = json(query).items[0];
        if (!item) {
          trace.push(`  ${name}: no ref, the name query has no item: not deployed`);
          continue; // the executor reports the skill as not deployed
        }
        skillId = valueI64(item.metadata.labels.id);
        skillNamespace = item.metadata.namespace ?? 'default';
        expectedHash = `sha256:${item.status.fileHash}`;
      }
      // 3. download_path: namespace and task_id in the query, no version.
      const path = `/api/v1/kinds/skills/${skillId}/download?namespace=${skillNamespace}&task_id=${info.task_id}`;
      const zip = await wegentGet(path);
      expect(zip.status).toBe(200);
      expect(zip.headers['content-type']).toBe('application/zip');
      // 4. the bytes are what the ref names, and the ETag says so.
      expect(hashOf(zip.body)).toBe(expectedHash);
      expect(zip.headers.etag).toBe(`"${expectedHash}"`);
      // 5. a cached copy revalidates with the content hash.
      const again = await wegentGet(path, { 'If-None-Match': `"${expectedHash}"` });
      expect(again.status).toBe(304);
      expect(again.body).toEqual(Buffer.alloc(0));
      deployed[name] = expectedHash!;
      trace.push(`  ${name}: skill ${skillId} in ${skillNamespace}, ${zip.body.length} bytes, ${expectedHash}`);
    }
    expect(Object.keys(deployed)).toEqual(['doc-writer', 'pdf-tools', 'shell-helper']);
    expect(deployed['doc-writer']).toBe(docWriter.latest_version.content_hash);
  });

  it('the name query for a name without a ref: the Skill kind of what the task resolves, or nothing', async () => {
    // A client that reads only `skills` (the older executor) asks by name for every one of them.
    const info = parseTaskSkillsInfo(json(await wegentGet(`/api/v1/tasks/${task.id}/skills`)));
    for (const name of ['doc-writer', 'pdf-tools', 'shell-helper']) {
      const query = await wegentGet(
        `/api/v1/kinds/skills?name=${name}&namespace=${info.team_namespace}&task_id=${info.task_id}`,
      );
      expect(query.status).toBe(200);
      const { items } = json(query);
      expect(items).toHaveLength(1);
      const { metadata, status } = items[0];
      expect(typeof metadata.labels.id).toBe('string');
      expect(metadata).toEqual({
        name,
        namespace: info.skill_refs[name].namespace,
        labels: { id: String(info.skill_refs[name].skill_id) },
      });
      expect(`sha256:${status.fileHash}`).toBe(info.skill_refs[name].content_hash);
      const zip = await wegentGet(
        `/api/v1/kinds/skills/${valueI64(metadata.labels.id)}/download?namespace=${metadata.namespace}&task_id=${info.task_id}`,
      );
      expect(zip.status).toBe(200);
      expect(hashOf(zip.body)).toBe(`sha256:${status.fileHash}`);
      trace.push(`  ${name}: labels.id "${metadata.labels.id}", namespace ${metadata.namespace}`);
    }
    // `retired` has no ref (its ghost ref points to a deleted skill): the query answers no item,
    // not the public skill of that name.
    expect(info.skill_refs.retired).toBeUndefined();
    expect(info.preload_skill_refs.retired).toBeUndefined();
    const none = await wegentGet(
      `/api/v1/kinds/skills?name=retired&namespace=${info.team_namespace}&task_id=${info.task_id}`,
    );
    expect(none.status).toBe(200);
    expect(json(none)).toEqual({ items: [] });
    trace.push('  retired: {"items":[]}');
  });

  it('the v1 route answers byte for byte what /api/tasks/{id}/skills answers, with the same ETag and 304', async () => {
    const v1 = await wegentGet(`/api/v1/tasks/${task.id}/skills`);
    const ours = await wegentGet(`/api/tasks/${task.id}/skills`);
    expect(v1.status).toBe(200);
    expect(ours.status).toBe(200);
    expect(Buffer.compare(v1.body, ours.body)).toBe(0);
    const fingerprint = json(v1).fingerprint;
    expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const header of ['etag', 'cache-control', 'content-type']) {
      expect(v1.headers[header]).toBe(ours.headers[header]);
    }
    expect(v1.headers.etag).toBe(`"${fingerprint}"`);
    // Each path's ETag revalidates on both.
    for (const path of [`/api/v1/tasks/${task.id}/skills`, `/api/tasks/${task.id}/skills`]) {
      const cached = await wegentGet(path, { 'If-None-Match': `"${fingerprint}"` });
      expect(cached.status).toBe(304);
      expect(cached.headers.etag).toBe(`"${fingerprint}"`);
      expect(cached.body).toEqual(Buffer.alloc(0));
      expect((await wegentGet(path, { 'If-None-Match': '"sha256:stale"' })).status).toBe(200);
    }
    // Users with an API key get the same answer on both paths too.
    const byUser = await t.http.get(`/api/v1/tasks/${task.id}/skills`).set(as(alice.key));
    expect(byUser.status).toBe(200);
    expect(byUser.body.fingerprint).toBe(fingerprint);
    trace.push(`  ETag "${fingerprint}" on both paths`);
  });

  it('the OpenAPI document lists the v1 route under the Wegent tag, with the resolution schema', async () => {
    const doc = (await t.http.get('/api/docs-json')).body;
    const [v1, ours] = [doc.paths['/api/v1/tasks/{id}/skills'].get, doc.paths['/api/tasks/{id}/skills'].get];
    expect(v1.tags).toContain('wegent');
    expect(v1.responses['200']).toEqual(ours.responses['200']);
    expect(v1.responses['304']).toBeDefined();
    expect(v1.security).toEqual(ours.security);
  });

  it('access is the same: another task, a task nobody may read, and a user without a role are 404', async () => {
    const other = await wegentGet(`/api/v1/tasks/${otherTask.id}/skills`);
    const missing = await wegentGet('/api/v1/tasks/2147483647/skills');
    for (const res of [other, missing, await wegentGet('/api/v1/tasks/abc/skills')]) {
      expectError({ ...res, body: json(res) } as request.Response, 404, 'NOT_FOUND');
    }
    expect(json(other).message).toBe('Task not found');
    expect({ ...json(other), requestId: '' }).toEqual({ ...json(missing), requestId: '' });
    // A token of another task reads its own task, not this one.
    const otherToken = await mint(otherTask.id);
    expectError(await t.http.get(`/api/v1/tasks/${task.id}/skills`).set(as(otherToken)), 404, 'NOT_FOUND');
    expect((await t.http.get(`/api/v1/tasks/${otherTask.id}/skills`).set(as(otherToken))).status).toBe(200);
    expectError(await t.http.get(`/api/v1/tasks/${task.id}/skills`).set(as(carol.key)), 404, 'NOT_FOUND');
    expectError(await t.http.get(`/api/v1/tasks/${task.id}/skills`), 401, 'UNAUTHENTICATED');
  });

  it('a skill pinned in skill_refs but preloaded unpinned downloads, without a version, as the preload ref Wegent takes', async () => {
    const pinned = await s.skill(alice, 'pinned-tool', 'wegent-team', 'v1');
    const v2 = await s.newVersion(alice, pinned.id, 'pinned-tool', 'v2');
    const { team: pinTeam } = await s.teamWithGhost(
      alice,
      'pinning',
      ['pinned-tool'],
      ['pinned-tool'],
      'wegent-team',
      {},
    );
    // The plain map pins version 1; the preload map keeps an unpinned ref (the latest version).
    const ghosts = await s.get(alice, '/api/ghosts?namespace=wegent-team&limit=100');
    const ghost = ghosts.items.find((g: { name: string }) => g.name === 'pinning-ghost');
    await s.put(alice, `/api/ghosts/${ghost.id}`, {
      name: ghost.name,
      namespace: 'wegent-team',
      skills: ['pinned-tool'],
      preload_skills: ['pinned-tool'],
      skill_refs: { 'pinned-tool': { skill_id: pinned.id, version: 1 } },
      preload_skill_refs: { 'pinned-tool': { skill_id: pinned.id } },
    });
    const pinTask = await s.task(alice, { team_id: pinTeam.id });
    const pinToken = await mint(pinTask.id);
    const resolved = (await t.http.get(`/api/v1/tasks/${pinTask.id}/skills`).set(as(pinToken))).body;
    expect(resolved.skill_refs['pinned-tool'].version).toBe(1);
    const ref = resolved.preload_skill_refs['pinned-tool'];
    expect(ref).toEqual(expect.objectContaining({ version: 2, content_hash: v2.latest_version.content_hash }));
    const bytes = await t.http
      .get(`/api/v1/kinds/skills/${ref.skill_id}/download?namespace=wegent-team&task_id=${pinTask.id}`)
      .set(as(pinToken))
      .buffer()
      .parse(binary);
    expect(`sha256:${sha256(bytes.body)}`).toBe(ref.content_hash);
  });

  it('an expired token and a revoked token answer 401 on every Wegent path', async () => {
    const expired = await mint(task.id, { ttl_seconds: 60 });
    await withClient(t.db.url, (c) =>
      c.query(`UPDATE task_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
        createHash('sha256').update(expired).digest('hex'),
      ]),
    );
    t.changed();
    const paths = [
      `/api/v1/tasks/${task.id}/skills`,
      `/api/v1/kinds/skills/${docWriter.id}/download?namespace=wegent-team&task_id=${task.id}`,
      `/api/v1/kinds/skills?name=doc-writer&namespace=wegent-team&task_id=${task.id}`,
    ];
    for (const path of paths) expectError(await t.http.get(path).set(as(expired)), 401, 'UNAUTHENTICATED');

    const live = await mint(task.id);
    expect((await t.http.get(paths[0]).set(as(live))).status).toBe(200);
    expect((await t.http.delete(`/api/tasks/${task.id}/tokens`).set(as(alice.key))).status).toBe(204);
    for (const revoked of [live, token]) {
      for (const path of paths) expectError(await t.http.get(path).set(as(revoked)), 401, 'UNAUTHENTICATED');
    }
    trace.push('expired and revoked tokens: 401 UNAUTHENTICATED on the three paths');
  });
});
