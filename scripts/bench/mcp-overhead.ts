// The cost of MCP over plain HTTP (docs/benchmarks.md#mcp): one `get_task_skills` tools/call on a connected
// SDK client against the same `GET /api/tasks/{id}/skills`, sequential and interleaved so machine
// noise falls on both alike. Also seeds a small task through the API and records a transcript of
// the tools, for a running service (scripts/mcp-overhead.ts) or a bench hook.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { buildCanonicalZip } from '../../src/package/canonical-zip';

export interface LatencyStats {
  calls: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

export interface McpOverhead {
  get: LatencyStats;
  /** tools/call through the SDK client: what an agent pays, client-side parsing included. */
  mcp: LatencyStats;
  /** The same tools/call as one plain POST of its JSON-RPC message: the server's share. */
  raw: LatencyStats;
}

export interface McpTarget {
  /** The service root, e.g. http://127.0.0.1:3000 */
  url: string;
  /** An API key or a task token. */
  key: string;
}

export interface McpScenario {
  taskId: number;
  skillIds: Record<string, number>;
  token: string;
}

function headers(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

async function api<T = { id: number }>(target: McpTarget, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${target.url}/api${path}`, {
    method,
    headers: { ...headers(target.key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

function skillPackage(name: string, frontmatter: string, body: string, files: Record<string, string> = {}): Blob {
  const skillMd = `---\nname: ${name}\n${frontmatter}\n---\n${body}`;
  const entries = Object.entries({ 'SKILL.md': skillMd, ...files })
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map(([path, data]) => ({ path, mode: '644' as const, data: Buffer.from(data) }));
  return new Blob([new Uint8Array(buildCanonicalZip(name, entries))], { type: 'application/zip' });
}

/**
 * A team of one bot whose ghost lists three personal skills of the key's user (two preloaded, with
 * tool policies), a task of that team and a token for it. Names carry `suffix`, so runs can repeat.
 */
export async function seedMcpScenario(admin: McpTarget, suffix: string): Promise<McpScenario> {
  const skills: Array<[string, string, string, Record<string, string>]> = [
    [
      `release-audit-${suffix}`,
      'description: Audit a release and write a risk report.\nallowed-tools: Bash(git:*) Bash(python *) Read\nmetadata:\n  requires:\n    bins: [git, python3]',
      '# Release audit\n\nRead references/checklist.md, then run scripts/audit.py.\n',
      {
        'references/checklist.md': '# Checklist\n\n- tags signed\n- changelog updated\n',
        'scripts/audit.py': 'print("ok")\n',
      },
    ],
    [`note-writer-${suffix}`, 'description: Write meeting notes.\nallowed-tools: Read Write', '# Notes\n', {}],
    [`pdf-forms-${suffix}`, 'description: Fill PDF forms.', '# PDF forms\n', {}],
  ];
  const skillIds: Record<string, number> = {};
  for (const [name, frontmatter, body, files] of skills) {
    const form = new FormData();
    form.append('file', skillPackage(name, frontmatter, body, files), 'skill.zip');
    const res = await fetch(`${admin.url}/api/skills`, { method: 'POST', headers: headers(admin.key), body: form });
    if (res.status !== 201) throw new Error(`publishing ${name}: ${res.status} ${await res.text()}`);
    skillIds[name] = ((await res.json()) as { id: number }).id;
  }
  const names = Object.keys(skillIds);
  const ghost = await api(admin, 'POST', '/ghosts', {
    name: `mcp-ghost-${suffix}`,
    skills: names,
    preload_skills: names.slice(0, 2),
  });
  const bot = await api(admin, 'POST', '/bots', { name: `mcp-bot-${suffix}`, ghost_id: ghost.id });
  const team = await api(admin, 'POST', '/teams', { name: `mcp-team-${suffix}`, members: [{ bot_id: bot.id }] });
  const task = await api(admin, 'POST', '/tasks', { team_id: team.id, title: 'MCP overhead' });
  const { token } = await api<{ token: string }>(admin, 'POST', `/tasks/${task.id}/tokens`, {});
  return { taskId: task.id, skillIds, token };
}

export async function connectMcp(target: McpTarget): Promise<Client> {
  const client = new Client({ name: 'skill-resolver-bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${target.url}/api/mcp`), {
      requestInit: { headers: headers(target.key) },
    }),
  );
  return client;
}

function stats(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const round = (ms: number): number => Math.round(ms * 1000) / 1000;
  return {
    calls: samples.length,
    p50_ms: round(at(0.5)),
    p99_ms: round(at(0.99)),
    mean_ms: round(samples.reduce((a, b) => a + b, 0) / samples.length),
  };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * `calls` sequential rounds (GET, a tools/call by the SDK client, the same tools/call as a plain
 * POST), after `warmup` rounds. Each reads the whole answer and parses its JSON; the client is
 * connected once, as an agent's is.
 */
export async function measureMcpOverhead(
  target: McpTarget,
  taskId: number,
  calls: number,
  warmup = 50,
): Promise<McpOverhead> {
  const client = await connectMcp(target);
  const get = async (): Promise<void> => {
    const res = await fetch(`${target.url}/api/tasks/${taskId}/skills`, { headers: headers(target.key) });
    if (res.status !== 200) throw new Error(`GET task skills: ${res.status}`);
    await res.json();
  };
  const mcp = async (): Promise<void> => {
    const result = await client.callTool({ name: 'get_task_skills', arguments: { task_id: taskId } });
    if (result.isError) throw new Error(`get_task_skills: ${JSON.stringify(result.structuredContent)}`);
  };
  const message = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_task_skills', arguments: { task_id: taskId } },
  });
  const raw = async (): Promise<void> => {
    const res = await fetch(`${target.url}/api/mcp`, {
      method: 'POST',
      headers: {
        ...headers(target.key),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: message,
    });
    if (res.status !== 200) throw new Error(`POST /api/mcp: ${res.status}`);
    await res.json();
  };
  try {
    for (let i = 0; i < warmup; i++) {
      await get();
      await mcp();
      await raw();
    }
    const samples = { get: [] as number[], mcp: [] as number[], raw: [] as number[] };
    for (let i = 0; i < calls; i++) {
      samples.get.push(await timed(get));
      samples.mcp.push(await timed(mcp));
      samples.raw.push(await timed(raw));
    }
    return { get: stats(samples.get), mcp: stats(samples.mcp), raw: stats(samples.raw) };
  } finally {
    await client.close();
  }
}

/** Any JSON-RPC result: the Skills extension's methods are not in the SDK's own schemas. */
const ANY_RESULT = z.looseObject({});

/** The fields of a skills/list answer read here. */
export interface SkillsListResult {
  skills: Array<{ uri: string; resources: Array<{ uri: string; digest: string; size: number }> }>;
  nextCursor?: string;
}

/** One request of the Skills extension (or any method) through the SDK client. */
export function skillsRequest(
  client: Client,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return client.request({ method, params }, ANY_RESULT);
}

/**
 * A task token's `skills/list` (its task's resolved set, with every file's digest) against the
 * same token's GET /api/tasks/{id}/skills: the listing costs the resolution plus the manifests.
 */
export async function measureSkillsList(
  target: McpTarget,
  taskId: number,
  calls: number,
  warmup = 50,
): Promise<{ get: LatencyStats; list: LatencyStats }> {
  const client = await connectMcp(target);
  const get = async (): Promise<void> => {
    const res = await fetch(`${target.url}/api/tasks/${taskId}/skills`, { headers: headers(target.key) });
    if (res.status !== 200) throw new Error(`GET task skills: ${res.status}`);
    await res.json();
  };
  const list = async (): Promise<void> => {
    const result = (await skillsRequest(client, 'skills/list')) as Partial<SkillsListResult>;
    if (!Array.isArray(result.skills)) throw new Error(`skills/list: ${JSON.stringify(result)}`);
  };
  try {
    for (let i = 0; i < warmup; i++) {
      await get();
      await list();
    }
    const samples = { get: [] as number[], list: [] as number[] };
    for (let i = 0; i < calls; i++) {
      samples.get.push(await timed(get));
      samples.list.push(await timed(list));
    }
    return { get: stats(samples.get), list: stats(samples.list) };
  } finally {
    await client.close();
  }
}
