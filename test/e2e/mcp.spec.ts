// The MCP endpoint (docs/mcp.md#endpoint) as agents use it: the SDK's own Client and Streamable HTTP
// transport against the real app on a real port. Every tool's answer is compared with the JSON of
// the HTTP route it stands for, as the same caller; errors are isError results with the same code.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ClientRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ChangeGeneration } from '../../src/cache/change-generation';
import { SERVED_REQUESTS } from '../../src/mcp/mcp-params';
import { listen, rawRequest } from '../support/raw-http';
import { Scenario } from '../support/scenario';
import { publishSkill } from '../support/skills';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

const MCP_ACCEPT = 'application/json, text/event-stream';
/** The tools of docs/mcp.md#tools, in its order; a task token sees all but find_skills (users only). */
const USER_TOOLS = ['find_skills', 'get_task_skills', 'get_skill_manifest', 'read_skill_file', 'check_tools'];
const TASK_TOOLS = ['get_task_skills', 'get_skill_manifest', 'read_skill_file', 'check_tools'];

const READER_MD = '# Reader\n\nRead references/guide.md before you start.\n';
const GUIDE = '# Guide\n\nStep one: read. Step two: résumé.\n';
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(256)]);
/** Text over 1 MiB that still compresses little (the package limits refuse a high ratio). */
const BIG_TEXT = randomBytes(800 * 1024).toString('base64');

describe('MCP endpoint (docs/mcp.md#endpoint)', () => {
  let t: TestApp;
  let s: Scenario;
  let port: number;
  let alice: TestUser;
  let bob: TestUser;
  let reader: any;
  let writer: any;
  let bobsSkill: any;
  let task: any;
  let bobsTask: any;
  let token: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    port = await listen(t);
    [alice, bob] = await Promise.all(['alice', 'bob'].map((n) => createUser(t, n)));
    reader = await publishSkill(
      t,
      alice,
      'reader',
      {},
      {
        frontmatter:
          'name: reader\ndescription: Reads the guide.\nallowed-tools: Read Bash(python *)\nmetadata:\n  requires:\n    bins: [python3]',
        body: READER_MD,
        files: { 'references/guide.md': GUIDE, 'assets/logo.png': PNG, 'data/big.txt': BIG_TEXT },
      },
    );
    writer = await publishSkill(
      t,
      alice,
      'writer',
      {},
      {
        frontmatter: 'name: writer\ndescription: Writes notes.\nallowed-tools: Read',
      },
    );
    bobsSkill = await publishSkill(t, bob, 'secret', {}, { description: "Bob's own skill." });
    const { team } = await s.teamWithGhost(alice, 'team-a', ['reader', 'writer'], ['reader']);
    task = await s.task(alice, { team_id: team.id, title: 'audit' });
    const bobs = await s.teamWithGhost(bob, 'team-b', ['secret']);
    bobsTask = await s.task(bob, { team_id: bobs.team.id });
    token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  function transport(key: string): StreamableHTTPClientTransport {
    return new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`), {
      requestInit: { headers: as(key) },
    });
  }

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    await client.connect(transport(key));
    clients.push(client);
    return client;
  }

  async function call(key: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const client = await connect(key);
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  function text(result: CallToolResult): string {
    expect(result.content).toHaveLength(1);
    const [content] = result.content;
    if (content.type !== 'text') throw new Error(`expected text content, got ${content.type}`);
    return content.text;
  }

  /** A successful result: its structuredContent, and a text rendering beside it. */
  function structured(result: CallToolResult): any {
    expect(result.isError).toBeFalsy();
    expect(text(result).length).toBeGreaterThan(0);
    return result.structuredContent;
  }

  /** An error result: {code, message[, details]} with the message as text; returns the structure. */
  function toolError(result: CallToolResult, code: string): any {
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(expect.objectContaining({ code }));
    const { message } = result.structuredContent as { message: string | string[] };
    expect(text(result)).toBe(Array.isArray(message) ? message.join('; ') : message);
    return result.structuredContent;
  }

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };

  /** One POST to the endpoint as alice, byte for byte. */
  function post(body: string, headers: Record<string, string> = {}) {
    return rawRequest(port, {
      method: 'POST',
      path: '/api/mcp',
      headers: { ...as(alice.key), 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
      body,
    });
  }

  /** The same error as the HTTP route answered: code, message and details. */
  function sameError(result: CallToolResult, http: { status: number; body: any }): void {
    expect(http.status).toBeGreaterThanOrEqual(400);
    const { code, message, details } = http.body;
    expect(toolError(result, code)).toEqual({ code, message, ...(details ? { details } : {}) });
  }

  describe('tools/list', () => {
    it('shows a user the five tools of docs/mcp.md#tools, with JSON Schema inputs and descriptions for a model', async () => {
      const { tools } = await (await connect(alice.key)).listTools();
      expect(tools.map((tool) => tool.name)).toEqual(USER_TOOLS);
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(100);
        expect(tool.annotations).toEqual(expect.objectContaining({ readOnlyHint: true, destructiveHint: false }));
      }
      const taskSkills = tools.find((tool) => tool.name === 'get_task_skills')!;
      expect(taskSkills.inputSchema).toEqual(
        expect.objectContaining({
          type: 'object',
          properties: { task_id: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 2147483647 }) },
          required: ['task_id'],
          additionalProperties: false,
        }),
      );
      const checkTools = tools.find((tool) => tool.name === 'check_tools')!;
      expect(checkTools.inputSchema.properties).toEqual(
        expect.objectContaining({
          skills: expect.objectContaining({ type: 'array', maxItems: 256 }),
          tools: expect.objectContaining({ type: 'array', maxItems: 512 }),
          call: expect.objectContaining({ type: 'object', required: ['tool'] }),
        }),
      );
    });

    it('never shows a task token find_skills (users only)', async () => {
      expect((await (await connect(token)).listTools()).tools.map((tool) => tool.name)).toEqual(TASK_TOOLS);
    });
  });

  describe('get_task_skills', () => {
    it('answers GET /api/tasks/{id}/skills, for a user and for the task token', async () => {
      for (const key of [alice.key, token]) {
        const http = await s.get(key, `/api/tasks/${task.id}/skills`);
        const result = await call(key, 'get_task_skills', { task_id: task.id });
        expect(structured(result)).toEqual(http);
        expect(http.skills).toEqual(['reader', 'writer']);
        expect(text(result)).toContain(
          `- reader [preload]: skill ${reader.id} v1, personal; tools Read Bash(python *)`,
        );
      }
    });

    it('answers NOT_FOUND "Task not found" for a task the caller may not read, or that does not exist', async () => {
      for (const [key, id] of [
        [alice.key, bobsTask.id],
        [alice.key, 999_999],
        [token, bobsTask.id],
      ] as const) {
        const http = await t.http.get(`/api/tasks/${id}/skills`).set(as(key));
        expect(http.body.message).toBe('Task not found');
        sameError(await call(key, 'get_task_skills', { task_id: id }), http);
      }
    });

    it('refuses inputs outside the schema as VALIDATION_FAILED, listing every problem', async () => {
      const client = await connect(alice.key);
      const bad = async (args: Record<string, unknown>) =>
        toolError(
          (await client.callTool({ name: 'get_task_skills', arguments: args })) as CallToolResult,
          'VALIDATION_FAILED',
        ).message;
      expect(await bad({})).toEqual(['task_id must be a positive 32-bit integer']);
      expect(await bad({ task_id: 0 })).toEqual(['task_id must be a positive 32-bit integer']);
      expect(await bad({ task_id: 2 ** 31 })).toEqual(['task_id must be a positive 32-bit integer']);
      expect(await bad({ task_id: String(task.id) })).toEqual(['task_id must be a positive 32-bit integer']);
      expect(await bad({ task_id: 1.5, extra: true })).toEqual([
        'task_id must be a positive 32-bit integer',
        'property extra should not exist',
      ]);
    });
  });

  describe('get_skill_manifest', () => {
    it('answers GET /api/skills/{id}/manifest, latest or a given version', async () => {
      const latest = await s.get(alice, `/api/skills/${reader.id}/manifest`);
      const result = await call(alice.key, 'get_skill_manifest', { skill_id: reader.id });
      expect(structured(result)).toEqual(latest);
      expect(text(result)).toContain('references/guide.md');
      const v1 = await call(alice.key, 'get_skill_manifest', { skill_id: writer.id, version: 1 });
      expect(structured(v1)).toEqual(await s.get(alice, `/api/skills/${writer.id}/manifest?version=1`));
    });

    it('answers NOT_FOUND for a skill the caller may not read and for a missing version', async () => {
      const unreadable = await t.http.get(`/api/skills/${bobsSkill.id}/manifest`).set(as(alice.key));
      sameError(await call(alice.key, 'get_skill_manifest', { skill_id: bobsSkill.id }), unreadable);
      const missing = await t.http.get(`/api/skills/${reader.id}/manifest?version=7`).set(as(alice.key));
      sameError(await call(alice.key, 'get_skill_manifest', { skill_id: reader.id, version: 7 }), missing);
    });

    it('answers a task token what the manifest route answers it, in its set and outside', async () => {
      for (const id of [reader.id, bobsSkill.id]) {
        const http = await t.http.get(`/api/skills/${id}/manifest`).set(as(token));
        const result = await call(token, 'get_skill_manifest', { skill_id: id });
        if (http.status === 200) expect(structured(result)).toEqual(http.body);
        else sameError(result, http);
      }
      const outside = await call(token, 'get_skill_manifest', { skill_id: bobsSkill.id });
      expect(toolError(outside, 'NOT_FOUND')).toBeTruthy();
    });
  });

  describe('check_tools', () => {
    it('answers POST /api/tasks/{id}/tool-check, for a user and for the task token', async () => {
      const bodies = [
        {},
        { skills: ['reader', 'writer'] },
        { skills: ['reader'], tools: ['Bash', 'Read', 'Write'], call: { tool: 'Bash', command: 'python a.py' } },
        { skills: ['reader', 'writer'], call: { tool: 'Bash', command: 'python a.py' } },
      ];
      for (const key of [alice.key, token]) {
        for (const body of bodies) {
          const http = await s.post(key, `/api/tasks/${task.id}/tool-check`, body, 200);
          expect(structured(await call(key, 'check_tools', { task_id: task.id, ...body }))).toEqual(http);
        }
      }
      const refused = await call(token, 'check_tools', {
        task_id: task.id,
        skills: ['reader', 'writer'],
        call: { tool: 'Bash', command: 'python a.py' },
      });
      expect(refused.structuredContent).toEqual(
        expect.objectContaining({ call: { allowed: false, code: 'TOOL_NOT_ALLOWED', denied_by: ['writer'] } }),
      );
      expect(text(refused)).toContain('The call is refused: TOOL_NOT_ALLOWED by writer.');
    });

    it("answers the route's VALIDATION_FAILED (details included) and its DTO rules", async () => {
      const unknown = { skills: ['reader', 'nope'] };
      const http = await t.http.post(`/api/tasks/${task.id}/tool-check`).set(as(alice.key)).send(unknown);
      expect(http.body.details).toEqual(expect.objectContaining({ unknown_skills: ['nope'] }));
      sameError(await call(alice.key, 'check_tools', { task_id: task.id, ...unknown }), http);
      // 6,000 characters fit the schema; 18,000 bytes of UTF-8 break the DTO's byte limit.
      const long = { call: { tool: 'Bash', command: '€'.repeat(6000) } };
      const tooLong = await t.http.post(`/api/tasks/${task.id}/tool-check`).set(as(alice.key)).send(long);
      sameError(await call(alice.key, 'check_tools', { task_id: task.id, ...long }), tooLong);
      const shape = await call(alice.key, 'check_tools', { task_id: task.id, skills: 'reader', call: { command: 1 } });
      expect(toolError(shape, 'VALIDATION_FAILED').message).toEqual([
        'skills must be a list of strings',
        'call.tool must be a string of 1-256 characters',
        'call.command must be a string',
      ]);
    });

    it('answers NOT_FOUND for a task the caller may not read (a token: any other task)', async () => {
      for (const key of [alice.key, token]) {
        const http = await t.http.post(`/api/tasks/${bobsTask.id}/tool-check`).set(as(key)).send({});
        sameError(await call(key, 'check_tools', { task_id: bobsTask.id }), http);
      }
    });
  });

  describe('find_skills and read_skill_file', () => {
    it('find_skills answers what GET /api/skills/search answers, with bounds checked first', async () => {
      const result = await call(alice.key, 'find_skills', { query: 'reader guide', limit: 5 });
      const http = await s.get(alice, '/api/skills/search?q=reader%20guide&limit=5');
      expect(http.items[0]).toEqual(expect.objectContaining({ skill_id: reader.id, name: 'reader', version: 1 }));
      expect(structured(result)).toEqual(http);
      expect(text(result)).toContain(`- reader (skill ${reader.id} v1, personal, score ${http.items[0].score}`);
      const client = await connect(alice.key);
      for (const args of [
        { query: '' },
        { query: 'x'.repeat(257) },
        { query: 'a', limit: 51 },
        { query: 'a', min_score: 2 },
      ]) {
        toolError(
          (await client.callTool({ name: 'find_skills', arguments: args })) as CallToolResult,
          'VALIDATION_FAILED',
        );
      }
    });

    it("find_skills bounds the query as the route bounds q, after NFKC: the route's rule, named query", async () => {
      const hostile = `${'\u3316'.repeat(113)} ${'\u3315'.repeat(135)}`;
      const words = Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ');
      const before = await call(alice.key, 'find_skills', { query: 'reader guide' });
      for (const query of [hostile, '\u3316'.repeat(43), words, 'a'.repeat(2049)]) {
        const http = await t.http.get('/api/skills/search').query({ q: query }).set(as(alice.key));
        expect(http.status).toBe(400);
        const error = toolError(await call(alice.key, 'find_skills', { query }), 'VALIDATION_FAILED');
        expect(error.message).toEqual((http.body.message as string[]).map((m) => m.replace(/^q /, 'query ')));
      }
      expect(await call(alice.key, 'find_skills', { query: 'reader guide' })).toEqual(before);
      expect(structured(await call(alice.key, 'find_skills', { query: '\u3316'.repeat(42) }))).toEqual({
        items: [],
        query: '\u3316'.repeat(42),
      });
    });

    it('a task token is not offered find_skills: calling it is -32602, as for a tool that does not exist', async () => {
      for (const [key, name] of [
        [token, 'find_skills'],
        [alice.key, 'no_such_tool'],
      ]) {
        const client = await connect(key);
        await expect(client.callTool({ name, arguments: { query: 'reads' } })).rejects.toMatchObject({
          code: -32602,
          message: `MCP error -32602: Unknown tool: ${name}`,
        });
      }
    });

    it('read_skill_file answers a text file as text, for a user and for the task token', async () => {
      const manifest = await s.get(alice, `/api/skills/${reader.id}/manifest`);
      const guide = manifest.files.find((f: { path: string }) => f.path === 'references/guide.md');
      for (const key of [alice.key, token]) {
        const result = await call(key, 'read_skill_file', { skill_id: reader.id, path: 'references/guide.md' });
        expect(structured(result)).toEqual({
          skill_id: reader.id,
          version: 1,
          path: 'references/guide.md',
          size: guide.size,
          sha256: guide.sha256,
          content_type: 'text/markdown; charset=utf-8',
          text: GUIDE,
        });
        expect(text(result)).toBe(GUIDE);
      }
    });

    it('read_skill_file refuses a binary or larger file, naming its download URL', async () => {
      const binary = await call(alice.key, 'read_skill_file', {
        skill_id: reader.id,
        path: 'assets/logo.png',
        version: 1,
      });
      const url = `http://127.0.0.1:${port}/api/skills/${reader.id}/files/assets/logo.png?version=1`;
      expect(toolError(binary, 'FILE_NOT_TEXT').message).toBe(
        `assets/logo.png is not UTF-8 text (application/octet-stream): download it from ${url} with the same Authorization header`,
      );
      const big = await call(alice.key, 'read_skill_file', { skill_id: reader.id, path: 'data/big.txt' });
      expect(toolError(big, 'FILE_NOT_TEXT').message).toContain(
        `over the 1 MiB read_skill_file returns as text: download it from http://127.0.0.1:${port}/api/skills/${reader.id}/files/data/big.txt?version=1`,
      );
    });

    it('read_skill_file and get_skill_manifest answer VERSION_REVOKED for a revoked version, but to admins', async () => {
      const skill = await s.skill(alice, 'revoked-reads', 'default', 'one');
      await s.newVersion(alice, skill.id, 'revoked-reads', 'two');
      const revoked = await t.http
        .patch(`/api/skills/${skill.id}/versions/1`)
        .set(as(alice.key))
        .send({ status: 'revoked' });
      expect(revoked.status).toBe(200);
      const file = { skill_id: skill.id, path: 'SKILL.md', version: 1 };
      toolError(await call(alice.key, 'read_skill_file', file), 'VERSION_REVOKED');
      toolError(await call(alice.key, 'get_skill_manifest', { skill_id: skill.id, version: 1 }), 'VERSION_REVOKED');
      expect((await call(ADMIN_KEY, 'read_skill_file', file)).isError).toBeFalsy();
      // The latest version reads as before.
      expect(structured(await call(alice.key, 'read_skill_file', { skill_id: skill.id, path: 'SKILL.md' }))).toEqual(
        expect.objectContaining({ version: 2 }),
      );
    });

    it('read_skill_file answers NOT_FOUND outside what the caller may read', async () => {
      toolError(await call(alice.key, 'read_skill_file', { skill_id: bobsSkill.id, path: 'SKILL.md' }), 'NOT_FOUND');
      toolError(await call(token, 'read_skill_file', { skill_id: bobsSkill.id, path: 'SKILL.md' }), 'NOT_FOUND');
      toolError(
        await call(token, 'read_skill_file', { skill_id: reader.id, path: 'SKILL.md', version: 2 }),
        'NOT_FOUND',
      );
    });
  });

  describe('params that do not fit the method or the tool', () => {
    /** One request over raw HTTP as alice; its answer. */
    async function rpc(method: string, params?: unknown) {
      const res = await post(
        JSON.stringify({ jsonrpc: '2.0', id: 7, method, ...(params === undefined ? {} : { params }) }),
      );
      expect(res.status).toBe(200);
      return res.body;
    }

    /** The newest audit event: a refused request stores nothing, so it does not move. */
    async function newestAuditEvent(): Promise<unknown> {
      return (await s.get(ADMIN_KEY, '/api/audit-events?limit=1')).items[0]?.id;
    }

    const call = (params: unknown) => ['tools/call', params] as const;
    const args = (value: unknown) => call({ name: 'get_task_skills', arguments: value });
    it.each<[string, readonly [string, unknown], string]>([
      ['arguments a list', args([1]), 'Invalid params for tools/call: arguments must be an object'],
      ['arguments a string', args('{"task_id": 1}'), 'Invalid params for tools/call: arguments must be an object'],
      ['arguments a number', args(1), 'Invalid params for tools/call: arguments must be an object'],
      ['arguments null', args(null), 'Invalid params for tools/call: arguments must be an object'],
      ['arguments a boolean', args(true), 'Invalid params for tools/call: arguments must be an object'],
      ['no tool name', call({ arguments: {} }), 'Invalid params for tools/call: name is required'],
      ['a tool name that is no string', call({ name: 42 }), 'Invalid params for tools/call: name must be a string'],
      ['a tool that does not exist', call({ name: 'nope', arguments: {} }), 'Unknown tool: nope'],
      ['no params at all', ['tools/call', undefined], 'Invalid params for tools/call: params is required'],
      ['params a list', call([{ name: 'get_task_skills' }]), 'Invalid params for tools/call: params must be an object'],
      ['params null', call(null), 'Invalid params for tools/call: params must be an object'],
      [
        'initialize without its fields',
        ['initialize', {}],
        'Invalid params for initialize: protocolVersion is required; capabilities is required; clientInfo is required',
      ],
      [
        'initialize with fields of the wrong type',
        ['initialize', { protocolVersion: 20250618, capabilities: 'all', clientInfo: { name: 1, version: '1' } }],
        'Invalid params for initialize: protocolVersion must be a string; capabilities must be an object; clientInfo.name must be a string',
      ],
      ['ping with params a string', ['ping', 'now'], 'Invalid params for ping: params must be an object'],
      [
        'tools/list with a cursor that is no string',
        ['tools/list', { cursor: 5 }],
        'Invalid params for tools/list: cursor must be a string',
      ],
    ])('%s: -32602 with a message naming the field, nothing else', async (_case, [method, params], message) => {
      const before = await newestAuditEvent();
      expect(await rpc(method, params)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message } });
      expect(await newestAuditEvent()).toEqual(before);
    });

    it('answers every method of the protocol with params that fit none -32602 or -32601, never -32603', async () => {
      const methods = ClientRequestSchema.options.map((schema) => schema.shape.method.value);
      expect(methods).toEqual(expect.arrayContaining(['initialize', 'ping', 'tools/list', 'tools/call']));
      for (const method of methods) {
        const { error } = await rpc(method, 42);
        const served = SERVED_REQUESTS.has(method);
        expect({ method, code: error.code }).toEqual({ method, code: served ? -32602 : -32601 });
      }
    });

    it('answers the same through the SDK client, which reports the code', async () => {
      const client = await connect(alice.key);
      for (const value of [[task.id], String(task.id), null]) {
        await expect(
          client.request(
            { method: 'tools/call', params: { name: 'get_task_skills', arguments: value as never } },
            CallToolResultSchema,
          ),
        ).rejects.toMatchObject({
          code: -32602,
          message: 'MCP error -32602: Invalid params for tools/call: arguments must be an object',
        });
      }
      // The client still works for a request that fits.
      const fits = (await client.callTool({
        name: 'get_task_skills',
        arguments: { task_id: task.id },
      })) as CallToolResult;
      expect(structured(fits)).toEqual(expect.objectContaining({ skills: ['reader', 'writer'] }));
    });

    it("answers fields of the wrong type inside arguments as the tool's VALIDATION_FAILED, for each tool", async () => {
      const client = await connect(alice.key);
      const cases: Array<[string, Record<string, unknown>, string | RegExp]> = [
        ['find_skills', { query: 5 }, /^query /],
        ['get_task_skills', { task_id: 'one' }, 'task_id must be a positive 32-bit integer'],
        ['get_skill_manifest', { skill_id: true }, 'skill_id must be a positive 32-bit integer'],
        ['read_skill_file', { skill_id: reader.id, path: ['SKILL.md'] }, 'path must be a string of 1-4096 characters'],
        ['check_tools', { task_id: task.id, tools: 'Bash' }, 'tools must be a list of strings'],
      ];
      expect(cases.map(([name]) => name)).toEqual(USER_TOOLS);
      for (const [name, args, message] of cases) {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(toolError(result, 'VALIDATION_FAILED').message).toEqual([expect.stringMatching(message)]);
      }
    });
  });

  describe('HTTP', () => {
    it('answers a wrong key 401 before MCP, as the transport reports it', async () => {
      const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
      await expect(client.connect(transport('srk_wrong-key'))).rejects.toThrow(/401/);
      // The scheme is named, so a client reports a wrong key rather than starting an OAuth flow.
      for (const headers of [as('srk_wrong-key'), { authorization: '' }]) {
        const raw = await post(JSON.stringify(initialize), headers);
        expect({ status: raw.status, code: raw.body.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
        expect(raw.headers['www-authenticate']).toBe('Bearer realm="skill-resolver"');
        expect(raw.body).toEqual(
          expect.objectContaining({ statusCode: 401, error: 'Unauthorized', requestId: raw.headers['x-request-id'] }),
        );
      }
      // Every 401 of the API carries it, not only the endpoint's.
      const other = await rawRequest(port, { path: '/api/users/me', headers: as('srk_wrong-key') });
      expect({ status: other.status, header: other.headers['www-authenticate'] }).toEqual({
        status: 401,
        header: 'Bearer realm="skill-resolver"',
      });
      // The other header the API takes works here too.
      const apiKey = await post(JSON.stringify(initialize), { authorization: '', 'x-api-key': alice.key });
      expect(apiKey.status).toBe(200);
    });

    it('answers a malformed JSON-RPC message with a JSON-RPC error, and a body that is not JSON with 400', async () => {
      for (const body of ['{"hello": "world"}', '{"jsonrpc": "2.0", "id": 1, "method": 42}']) {
        const res = await post(body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: expect.objectContaining({ code: expect.any(Number) }),
        });
      }
      const unparseable = await post('{"jsonrpc": "2.0",');
      expect({ status: unparseable.status, code: unparseable.body.code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
      const notAccepted = await post(JSON.stringify(initialize), { accept: 'application/json' });
      expect(notAccepted.status).toBe(406);
      expect(notAccepted.body.error).toEqual(expect.objectContaining({ code: expect.any(Number) }));
      // A well-formed message still works on the same route afterwards.
      const ok = await post(JSON.stringify(initialize));
      expect(ok.status).toBe(200);
      expect(ok.body.result.serverInfo).toEqual({ name: 'skill-resolver', version: '1' });
    });

    it('takes one message per POST: a batch, of any length, is 400 VALIDATION_FAILED before MCP', async () => {
      const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
      for (const length of [1, 2, 1_000]) {
        const res = await post(JSON.stringify(Array.from({ length }, (_, i) => ping(i))));
        expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
          status: 400,
          code: 'VALIDATION_FAILED',
          message: ['the body must be a JSON object'],
        });
      }
      // Past the item limit of every JSON body, refused on the raw bytes before they are parsed.
      const many = await post(JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ping(i))));
      expect({ status: many.status, code: many.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      expect((await post(JSON.stringify(ping(1)))).body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    });

    it('answers GET and DELETE 405 in the one error shape (after authentication, as every route)', async () => {
      for (const method of ['GET', 'DELETE']) {
        for (const key of [alice.key, token]) {
          const res = await rawRequest(port, { method, path: '/api/mcp', headers: { accept: MCP_ACCEPT, ...as(key) } });
          expect({ status: res.status, allow: res.headers.allow }).toEqual({ status: 405, allow: 'POST' });
          expect(res.body).toEqual(
            expect.objectContaining({ statusCode: 405, error: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED' }),
          );
        }
        const anonymous = await rawRequest(port, { method, path: '/api/mcp', headers: { accept: MCP_ACCEPT } });
        expect({ status: anonymous.status, code: anonymous.body.code }).toEqual({
          status: 401,
          code: 'UNAUTHENTICATED',
        });
      }
    });

    it('leaves the caches valid: a tool call writes nothing', async () => {
      const changes = t.app.get(ChangeGeneration);
      const client = await connect(alice.key);
      const before = changes.current();
      await client.callTool({ name: 'get_task_skills', arguments: { task_id: task.id } });
      await client.callTool({ name: 'check_tools', arguments: { task_id: task.id } });
      expect(changes.current()).toBe(before);
      // A POST that may write moves it (the check above can fail).
      await s.post(alice, '/api/groups', { name: 'some-group' });
      expect(changes.current()).not.toBe(before);
    });

    it('is logged and measured like every route, under its route template', async () => {
      await (await connect(alice.key)).listTools();
      const lines = t.logs.map((line) => JSON.parse(line)).filter((l) => l.msg === 'request' && l.path === '/api/mcp');
      expect(lines).toEqual(expect.arrayContaining([expect.objectContaining({ method: 'POST', status: 200 })]));
      const metrics = await t.http.get('/api/metrics').set(as(ADMIN_KEY));
      expect(metrics.text).toMatch(
        /http_request_duration_seconds_count\{method="POST",route="\/api\/mcp",status="200"\} \d+/,
      );
    });
  });
});
