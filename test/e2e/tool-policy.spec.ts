// The tool policy through the real app (docs/packages.md#validation, docs/tool-policy.md, docs/api.md#veadk-manifest): VikingBot and OpenClaw skills are
// taken, their policy is served on Version, the manifest and every ref, tool-check answers the
// intersection rule, and remote-skills.json is a document VeADK's loader takes.
import { ChangeGeneration } from '../../src/cache/change-generation';
import { remoteSkillsLoaderViolations } from '../../src/policy';
import { Scenario } from '../support/scenario';
import { publish, publishVersion, skillRowCounts } from '../support/skills';
import { COMMAND_16_KIB, HeavyTask, heavyPolicyTask } from '../support/tool-policy-load';
import { as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

/** The VikingBot skill of issue 8, as its author wrote it. */
const VIKINGBOT_FRONTMATTER = [
  'name: release-audit',
  'description: Audit a release and write a risk report.',
  'allowed-tools: Bash(git:*) Bash(python *) Read',
  'metadata:',
  '  vikingbot:',
  '    requires:',
  '      bins: [python3, git]',
  '      env: [GITHUB_TOKEN]',
].join('\n');
const VIKINGBOT_POLICY = {
  allowed_tools: ['Bash(git:*)', 'Bash(python *)', 'Read'],
  requires: { bins: ['git', 'python3'], env: ['GITHUB_TOKEN'] },
};
/** An OpenClaw skill: its metadata is one line of JSON. */
const OPENCLAW_FRONTMATTER = [
  'name: json-query',
  'description: Query JSON files with jq.',
  'metadata: {"openclaw": {"requires": {"bins": ["jq"]}}}',
].join('\n');
const OPENCLAW_POLICY = { allowed_tools: null, requires: { bins: ['jq'], env: [] } };

const zipOf = (frontmatter: string, body = '# Skill\n'): Buffer =>
  skillZip(/^name: (\S+)/m.exec(frontmatter)![1], { frontmatter, body });
const withTools = (name: string, allowedTools: string | null, extra = ''): Buffer =>
  zipOf(
    `name: ${name}\ndescription: ${name} skill.${allowedTools === null ? '' : `\nallowed-tools: ${allowedTools}`}${extra}`,
  );

describe('tool policy (docs/tool-policy.md)', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    [alice, bob] = await Promise.all(['alice', 'bob'].map((n) => createUser(t, n)));
  });
  afterAll(async () => {
    await t.close();
  });

  function validate(zip: Buffer) {
    return t.http.post('/api/skills/validate').set(as(alice.key)).attach('file', zip, 'skill.zip');
  }

  async function published(zip: Buffer): Promise<any> {
    const res = await publish(t, alice, zip);
    if (res.status !== 201) throw new Error(`publish: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function mint(user: TestUser, taskId: number): Promise<string> {
    const res = await t.http.post(`/api/tasks/${taskId}/tokens`).set(as(user.key)).send({});
    expect(res.status).toBe(201);
    return res.body.token;
  }

  function toolCheck(key: string, taskId: number, body: object) {
    return t.http.post(`/api/tasks/${taskId}/tool-check`).set(as(key)).send(body);
  }

  describe('publishing VikingBot and OpenClaw skills', () => {
    let existing: any;

    beforeAll(async () => {
      existing = await published(zipOf('name: bad-policy\ndescription: Version 1 had no policy.'));
    });

    it('validate lists no problem for the VikingBot example (a warning for its nested metadata)', async () => {
      const res = await validate(zipOf(VIKINGBOT_FRONTMATTER));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        valid: true,
        name: 'release-audit',
        description: 'Audit a release and write a risk report.',
        errors: [],
        warnings: [expect.objectContaining({ code: 'METADATA_NOT_STRINGS', field: 'metadata' })],
      });
    });

    it.each<[string, string, Array<[string, string]>]>([
      ['allowed-tools a number', 'allowed-tools: 42', [['ALLOWED_TOOLS_INVALID', 'allowed-tools']]],
      [
        'allowed-tools with an empty body and unbalanced parentheses',
        'allowed-tools: Read() Bash(git:*',
        [
          ['ALLOWED_TOOLS_INVALID', 'allowed-tools'],
          ['ALLOWED_TOOLS_INVALID', 'allowed-tools'],
        ],
      ],
      [
        'allowed-tools a list holding a mapping and a bad name',
        'allowed-tools: [Read, {Bash: git}, "9lives"]',
        [
          ['ALLOWED_TOOLS_INVALID', 'allowed-tools'],
          ['ALLOWED_TOOLS_INVALID', 'allowed-tools'],
        ],
      ],
      [
        'metadata.vikingbot.requires a list',
        'metadata:\n  vikingbot:\n    requires: [python3, git]',
        [['REQUIRES_INVALID', 'metadata.vikingbot.requires']],
      ],
      [
        'metadata.openclaw.requires with a path and a bad variable name',
        'metadata: {"openclaw": {"requires": {"bins": ["/usr/bin/jq"], "env": ["GITHUB-TOKEN"]}}}',
        [
          ['REQUIRES_INVALID', 'metadata.openclaw.requires'],
          ['REQUIRES_INVALID', 'metadata.openclaw.requires'],
        ],
      ],
      ['metadata a list', 'metadata: [vikingbot]', [['METADATA_INVALID', 'metadata']]],
    ])('%s: listed by validate and at publish, nothing stored', async (_title, yaml, expected) => {
      const zip = zipOf(`name: bad-policy\ndescription: A malformed policy.\n${yaml}`);
      const report = await validate(zip);
      expect(report.status).toBe(200);
      expect(report.body.valid).toBe(false);
      expect(report.body.errors.map((e: any) => [e.code, e.field])).toEqual(expected);
      for (const problem of report.body.errors) expect(problem.message).toMatch(/^\S.*\.$/);

      const before = await skillRowCounts(t);
      const rejected = expectError(await publish(t, alice, zip), 400, 'SKILL_INVALID');
      expect(rejected.details).toEqual({ errors: report.body.errors, warnings: report.body.warnings });
      const asVersion = expectError(await publishVersion(t, alice, existing.id, zip), 400, 'SKILL_INVALID');
      expect(asVersion.details).toEqual(rejected.details);
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it('serves the policy on the publish answer, Version, the versions list and the manifest', async () => {
      for (const [frontmatter, policy] of [
        [VIKINGBOT_FRONTMATTER, VIKINGBOT_POLICY],
        [OPENCLAW_FRONTMATTER, OPENCLAW_POLICY],
      ] as const) {
        const skill = await published(zipOf(frontmatter));
        expect(skill.warnings.map((w: any) => w.code)).toEqual(['METADATA_NOT_STRINGS']);
        expect(skill.latest_version).toMatchObject(policy);
        expect((await s.get(alice, `/api/skills/${skill.id}`)).latest_version).toMatchObject(policy);
        expect((await s.get(alice, `/api/skills/${skill.id}/versions`)).items[0]).toMatchObject(policy);
        const manifest = await s.get(alice, `/api/skills/${skill.id}/manifest`);
        expect(manifest).toMatchObject(policy);
      }
    });

    it('a list of tools is accepted with ALLOWED_TOOLS_LIST, and an empty allowed-tools allows no tool', async () => {
      const listed = await published(withTools('listed-tools', '[Read, "Bash(git:*)"]'));
      expect(listed.warnings.map((w: any) => w.code)).toEqual(['ALLOWED_TOOLS_LIST']);
      expect(listed.latest_version.allowed_tools).toEqual(['Read', 'Bash(git:*)']);
      const none = await published(withTools('no-tools', '""'));
      expect(none.latest_version.allowed_tools).toEqual([]);
    });
  });

  describe('a task whose preload skills allow "Read Bash(python *)" and "Read"', () => {
    let py: any;
    let reader: any;
    let audit: any;
    let taskId: number;
    let otherTaskId: number;

    beforeAll(async () => {
      py = await published(withTools('py-runner', 'Read Bash(python *)'));
      reader = await published(withTools('reader', 'Read'));
      audit = await s.get(alice, `/api/skills?name=release-audit`).then((r) => r.items[0]);
      const { team, ghost } = await s.teamWithGhost(
        alice,
        'policy-team',
        ['py-runner', 'reader', 'release-audit'],
        ['py-runner', 'reader'],
      );
      // Ghost answers show stored refs as they read now, without the policy (a ghost is a selection).
      expect(Object.keys(ghost.skill_refs.reader).sort()).toEqual(
        ['content_hash', 'is_public', 'namespace', 'pinned', 'skill_id', 'status', 'tag', 'version'].sort(),
      );
      taskId = (await s.task(alice, { team_id: team.id })).id;
      otherTaskId = (await s.task(alice, { team_id: team.id })).id;
    });

    it('every ref of the task skills answer and of an ExecutionRequest carries its version’s policy', async () => {
      const answer = await s.skills(alice, taskId);
      expect(answer.preload_skills).toEqual(['py-runner', 'reader']);
      const ref = (skill: any, policy: object) => ({
        skill_id: skill.id,
        namespace: 'default',
        is_public: false,
        version: 1,
        content_hash: skill.latest_version.content_hash,
        pinned: false,
        tag: null,
        status: 'active',
        ...policy,
      });
      const pyPolicy = { allowed_tools: ['Read', 'Bash(python *)'], requires: { bins: [], env: [] } };
      const readerPolicy = { allowed_tools: ['Read'], requires: { bins: [], env: [] } };
      expect(answer.skill_refs).toEqual({
        'py-runner': ref(py, pyPolicy),
        reader: ref(reader, readerPolicy),
        'release-audit': ref(audit, VIKINGBOT_POLICY),
      });
      expect(answer.preload_skill_refs).toEqual({ 'py-runner': ref(py, pyPolicy), reader: ref(reader, readerPolicy) });
      // As on Version: `bins` before `env`, whatever order the database keeps them in.
      expect(Object.keys(answer.skill_refs['release-audit'].requires)).toEqual(['bins', 'env']);
      const v1 = await s.get(alice, `/api/v1/tasks/${taskId}/skills`);
      expect(v1).toEqual(answer);
      const request = await s.post(alice, `/api/tasks/${taskId}/execution-requests`, {}, 200);
      expect(request.skill_refs).toEqual(answer.skill_refs);
      expect(request.fingerprint).toBe(answer.fingerprint);
    });

    it('tool-check: only Read is visible, and git status is refused with TOOL_NOT_ALLOWED', async () => {
      const res = await toolCheck(alice.key, taskId, { call: { tool: 'Bash', command: 'git status' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        skills: [
          { name: 'py-runner', skill_id: py.id, version: 1, allowed_tools: ['Read', 'Bash(python *)'] },
          { name: 'reader', skill_id: reader.id, version: 1, allowed_tools: ['Read'] },
        ],
        visible_tools: ['Read'],
        requires: { bins: [], env: [] },
        call: { allowed: false, code: 'TOOL_NOT_ALLOWED', denied_by: ['reader'] },
      });
    });

    it.each<[string, object, object]>([
      [
        'py-runner alone allows python, refuses git',
        { skills: ['py-runner'], call: { tool: 'Bash', command: 'python scripts/a.py' } },
        { visible_tools: ['Bash', 'Read'], call: { allowed: true, code: null, denied_by: [] } },
      ],
      [
        'py-runner alone: git status is not a python command',
        { skills: ['py-runner'], call: { tool: 'Bash', command: 'git status' } },
        { call: { allowed: false, code: 'COMMAND_NOT_ALLOWED', denied_by: ['py-runner'] } },
      ],
      [
        'py-runner alone: a compound python command',
        { skills: ['py-runner'], call: { tool: 'Bash', command: 'python a.py; rm -rf /' } },
        { call: { allowed: false, code: 'COMMAND_COMPOUND', denied_by: ['py-runner'] } },
      ],
      [
        'the tools the bot offers, in their spelling and order',
        { tools: ['Write', 'read', 'Bash'] },
        { visible_tools: ['read'] },
      ],
      [
        'the VikingBot skill: its requires, the union',
        { skills: ['release-audit', 'py-runner'], call: { tool: 'Bash', command: 'python3 a.py' } },
        {
          visible_tools: ['Bash', 'Read'],
          requires: VIKINGBOT_POLICY.requires,
          call: { allowed: false, code: 'COMMAND_NOT_ALLOWED', denied_by: ['py-runner', 'release-audit'] },
        },
      ],
      ['no skill active: nothing restricts', { skills: [] }, { skills: [], visible_tools: null }],
      ...["git $'\\'';id #'", "git $'\\'' && id #'", "git $'\\''|sh #'", 'git status \\; id'].map(
        (command): [string, object, object] => [
          `the VikingBot skill's Bash(git:*) refuses ${command}: bash would run a second program`,
          { skills: ['release-audit'], call: { tool: 'Bash', command } },
          { call: { allowed: false, code: 'COMMAND_COMPOUND', denied_by: ['release-audit'] } },
        ],
      ),
      [
        'the VikingBot skill allows a quoted commit message',
        { skills: ['release-audit'], call: { tool: 'Bash', command: 'git commit -m "fix: x; y"' } },
        { call: { allowed: true, code: null, denied_by: [] } },
      ],
      [
        'a command of exactly 16 KiB is checked',
        { skills: ['py-runner'], call: { tool: 'Bash', command: `python ${'a'.repeat(16 * 1024 - 7)}` } },
        { call: { allowed: true, code: null, denied_by: [] } },
      ],
    ])('tool-check: %s', async (_title, body, expected) => {
      const res = await toolCheck(alice.key, taskId, body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject(expected);
    });

    it.each<[string, unknown, RegExp]>([
      ['an unknown key', { skill: ['reader'] }, /property skill should not exist/],
      ['an unknown key in call', { call: { tool: 'Bash', cmd: 'ls' } }, /call.cmd/],
      ['skills not a list', { skills: 'reader' }, /skills must be an array/],
      ['skills null', { skills: null }, /skills must be an array/],
      ['a tool name not a string', { tools: ['Read', 7] }, /each value in tools must be a string/],
      ['call not an object', { call: 'Bash' }, /call must be an object/],
      ['call without tool', { call: { command: 'ls' } }, /call.tool/],
      ['a command not a string', { call: { tool: 'Bash', command: 5 } }, /call.command: command must be a string/],
      [
        'a command over 16 KiB',
        { call: { tool: 'Bash', command: 'é'.repeat(8 * 1024 + 1) } },
        /command must be at most 16384 bytes/,
      ],
      [
        'too many skills',
        { skills: Array.from({ length: 257 }, (_, i) => `s${i}`) },
        /skills must contain no more than 256/,
      ],
      [
        'too many tools',
        { tools: Array.from({ length: 513 }, (_, i) => `T${i}`) },
        /tools must contain no more than 512/,
      ],
    ])('tool-check: %s is 400 VALIDATION_FAILED', async (_title, body, message) => {
      const res = await toolCheck(alice.key, taskId, body as object);
      const error = expectError(res, 400, 'VALIDATION_FAILED');
      expect((error.message as string[]).join('\n')).toMatch(message);
    });

    it('tool-check: a skill outside the task’s resolved set is 400 VALIDATION_FAILED naming it', async () => {
      const res = await toolCheck(alice.key, taskId, { skills: ['reader', 'json-query', 'nope'] });
      const error = expectError(res, 400, 'VALIDATION_FAILED');
      expect(error.message).toEqual(['Not skills of this task\'s resolved set: "json-query", "nope".']);
      expect(error.details).toEqual({ unknown_skills: ['json-query', 'nope'] });
    });

    it('tool-check writes nothing, so it leaves the caches valid', async () => {
      const generation = t.app.get(ChangeGeneration);
      const before = generation.current();
      expect((await toolCheck(alice.key, taskId, {})).status).toBe(200);
      expect(generation.current()).toBe(before);
    });

    it('a token calls both routes for its task; another task’s token gets 404; a stranger gets 404', async () => {
      const token = await mint(alice, taskId);
      const check = await toolCheck(token, taskId, { call: { tool: 'Bash', command: 'git status' } });
      expect(check.status).toBe(200);
      expect(check.body.visible_tools).toEqual(['Read']);
      const doc = await t.http.get(`/api/tasks/${taskId}/remote-skills.json`).set(as(token));
      expect(doc.status).toBe(200);
      expect(doc.body.remote_skills.map((r: any) => r.name)).toEqual(['py-runner', 'reader', 'release-audit']);

      const other = await mint(alice, otherTaskId);
      expectError(await toolCheck(other, taskId, {}), 404, 'NOT_FOUND');
      expectError(await t.http.get(`/api/tasks/${taskId}/remote-skills.json`).set(as(other)), 404, 'NOT_FOUND');
      expectError(await toolCheck(bob.key, taskId, {}), 404, 'NOT_FOUND');
      expectError(await t.http.get(`/api/tasks/${taskId}/remote-skills.json`).set(as(bob.key)), 404, 'NOT_FOUND');
      expectError(await t.http.post(`/api/tasks/${taskId}/tool-check`).send({}), 401, 'UNAUTHENTICATED');
    });

    it('a new version that changes only the policy changes the refs and the fingerprint', async () => {
      const before = await s.skills(alice, taskId);
      const res = await publishVersion(t, alice, py.id, withTools('py-runner', 'Read Bash(python scripts/*)'));
      expect(res.status).toBe(201);
      const after = await s.skills(alice, taskId);
      expect(after.skill_refs['py-runner']).toMatchObject({
        version: 2,
        allowed_tools: ['Read', 'Bash(python scripts/*)'],
      });
      expect(after.fingerprint).not.toBe(before.fingerprint);
      const check = await toolCheck(alice.key, taskId, {
        skills: ['py-runner'],
        call: { tool: 'Bash', command: 'python a.py' },
      });
      expect(check.body.call).toEqual({ allowed: false, code: 'COMMAND_NOT_ALLOWED', denied_by: ['py-runner'] });
    });
  });

  describe('the matching budget of one call, across all its skills (docs/tool-policy.md#budget)', () => {
    let heavy: HeavyTask;
    let fits: HeavyTask;

    beforeAll(async () => {
      heavy = await heavyPolicyTask(s, alice, 'heavy', 256, 70);
      fits = await heavyPolicyTask(s, alice, 'fits', 64, 16);
    }, 300_000);

    it('256 skills of 70 patterns against a 16 KiB command: refused with POLICY_TOO_COMPLEX, by every skill', async () => {
      const body = { skills: heavy.names, call: { tool: 'Bash', command: COMMAND_16_KIB } };
      const res = await toolCheck(alice.key, heavy.taskId, body);
      expect(res.status).toBe(200);
      expect(res.body.skills).toHaveLength(256);
      expect(res.body.visible_tools).toEqual(['Bash']);
      expect(res.body.call).toEqual({ allowed: false, code: 'POLICY_TOO_COMPLEX', denied_by: heavy.names });
      // A short command fits the same patterns, and is matched.
      const short = await toolCheck(alice.key, heavy.taskId, {
        ...body,
        call: { tool: 'Bash', command: 'git status' },
      });
      expect(short.body.call).toEqual({ allowed: false, code: 'COMMAND_NOT_ALLOWED', denied_by: heavy.names });
    });

    it('64 skills of 16 patterns against a 16 KiB command: matched', async () => {
      const body = { skills: fits.names, call: { tool: 'Bash', command: COMMAND_16_KIB } };
      const res = await toolCheck(alice.key, fits.taskId, body);
      expect(res.status).toBe(200);
      expect(res.body.call).toEqual({ allowed: false, code: 'COMMAND_NOT_ALLOWED', denied_by: fits.names });
      // The character one pattern of every skill looks for, at the end: each skill finds it.
      const allowedBy = String.fromCodePoint(0x4e00);
      const one = await toolCheck(alice.key, fits.taskId, {
        skills: [fits.names[0]],
        call: { tool: 'Bash', command: `${COMMAND_16_KIB.slice(0, -3)}${allowedBy}` },
      });
      expect(one.body.call).toEqual({ allowed: true, code: null, denied_by: [] });
    });
  });

  describe('GET /api/tasks/{id}/remote-skills.json (docs/api.md#veadk-manifest)', () => {
    let taskId: number;

    beforeAll(async () => {
      const metadata = (value: object): string => `\nmetadata: ${JSON.stringify(value)}`;
      const skills: Array<[string, string]> = [
        [
          'report-writer',
          metadata({
            display_name: '报告撰写',
            timeout: 600,
            input_schema: {
              type: 'object',
              properties: { format: { type: 'string', enum: ['doc', 'pdf'] } },
              required: ['format'],
            },
          }),
        ],
        ['bad-schema', metadata({ input_schema: { type: 'array' }, display_name: '   ', timeout: 0 })],
        ['schema-string', metadata({ input_schema: 'object', display_name: 7, timeout: 1801 })],
        ['digit-timeout', metadata({ timeout: '90', input_schema: ['type', 'object'] })],
        ['float-timeout', metadata({ timeout: 12.5, display_name: ['a'] })],
        ['plain', ''],
      ];
      for (const [name, extra] of skills) await published(withTools(name, null, extra));
      const names = skills.map(([name]) => name);
      const { team } = await s.teamWithGhost(alice, 'veadk-team', names, ['plain']);
      taskId = (await s.task(alice, { team_id: team.id })).id;
    });

    it('serves the resolved skill_refs in name order, as a document VeADK’s loader takes', async () => {
      const res = await t.http.get(`/api/tasks/${taskId}/remote-skills.json`).set(as(alice.key));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['content-disposition']).toBe('attachment; filename="remote-skills.json"');
      const { fingerprint } = await s.skills(alice, taskId);
      expect(res.headers.etag).toBe(`"${fingerprint}"`);
      expect(remoteSkillsLoaderViolations(res.body)).toEqual([]);
      const object = { type: 'object' };
      expect(res.body).toEqual({
        remote_skills: [
          { name: 'bad-schema', description: 'bad-schema skill.', input_schema: object },
          { name: 'digit-timeout', description: 'digit-timeout skill.', input_schema: object, timeout: 90 },
          { name: 'float-timeout', description: 'float-timeout skill.', input_schema: object },
          { name: 'plain', description: 'plain skill.', input_schema: object },
          {
            name: 'report-writer',
            description: 'report-writer skill.',
            input_schema: {
              type: 'object',
              properties: { format: { type: 'string', enum: ['doc', 'pdf'] } },
              required: ['format'],
            },
            display_name: '报告撰写',
            timeout: 600,
          },
          { name: 'schema-string', description: 'schema-string skill.', input_schema: object },
        ],
      });
    });

    it('answers 304 on If-None-Match with the fingerprint, and a new document after a change', async () => {
      const first = await t.http.get(`/api/tasks/${taskId}/remote-skills.json`).set(as(alice.key));
      const etag = first.headers.etag;
      const again = await t.http
        .get(`/api/tasks/${taskId}/remote-skills.json`)
        .set(as(alice.key))
        .set('If-None-Match', etag);
      expect(again.status).toBe(304);
      expect(again.headers.etag).toBe(etag);
      const plain = (await s.get(alice, '/api/skills?name=plain')).items[0];
      await publishVersion(t, alice, plain.id, zipOf('name: plain\ndescription: Plain, second version.'));
      const changed = await t.http
        .get(`/api/tasks/${taskId}/remote-skills.json`)
        .set(as(alice.key))
        .set('If-None-Match', etag);
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(changed.body.remote_skills.find((r: any) => r.name === 'plain').description).toBe(
        'Plain, second version.',
      );
    });
  });
});
