// The MCP tools of docs/mcp.md#tools, each a thin adapter over the service its HTTP route uses: the
// same access checks, the same answer (as structuredContent), the same errors (as isError results).
// Loaded by McpTools on the first MCP request (this module and the SDK are not needed to boot).
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { ValidationPipe } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Principal } from '../auth/principal';
import { createValidationPipe } from '../common/http/validation.pipe';
import type { AppLogger } from '../common/logging/app-logger';
import { ToolCheckBody } from '../tool-policy/dto/tool-policy.dto';
import { toTaskSkillsDto } from '../resolution/resolution.mapper';
import type { TaskResolutionService } from '../resolution/task-resolution.service';
import type { TaskToolPolicyService } from '../tool-policy/task-tool-policy.service';
import { VersionQuery } from '../skills/dto/skill.dto';
import {
  CHECK_TOOLS_INPUT,
  FILE_INPUT,
  FIND_INPUT,
  listedAs,
  MANIFEST_INPUT,
  parseInput,
  TASK_SKILLS_INPUT,
} from './mcp-input';
import { forTransport, paramsRefusal, withoutInternals } from './mcp-params';
import { errorResult, toolError, toolResult } from './mcp-results';
import { registerSkills } from './mcp-skills';
import type { McpSources, OpenedSkillFile } from './mcp-sources';
import { manifestText, searchText, taskSkillsText, toolCheckText } from './mcp-text';

export const MCP_SERVER_NAME = 'skill-resolver';
export const MCP_SERVER_VERSION = '1';
/** read_skill_file returns files up to this size as text (docs/mcp.md#tools). */
export const MAX_TEXT_FILE_BYTES = 1024 * 1024;

/** Every tool only reads: clients may call them without asking. */
const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const INSTRUCTIONS =
  'The skills of this agent platform. For a task: get_task_skills gives its skills as exact refs; ' +
  'get_skill_manifest reads one (its SKILL.md, files and tool policy); read_skill_file reads a file it lists; ' +
  'check_tools says which tools the active skills allow, before you call one. ' +
  'find_skills (API keys only) searches the skills you may read by what they do.';

interface ToolSpec<S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  listed: z.ZodObject;
}

function spec<S extends z.ZodObject>(name: string, title: string, description: string, input: S): ToolSpec<S> {
  return { name, title, description, input, listed: listedAs(input) };
}

const GET_TASK_SKILLS = spec(
  'get_task_skills',
  "A task's skills",
  "Resolve a task's skills into exact refs. Call it first when you work on a task. Returns skills (every name), " +
    'preload_skills (names to load at the start), skill_refs and preload_skill_refs (for each name: skill_id, ' +
    'version, content_hash, scope, allowed_tools, requires), unresolved (names that resolve to nothing, with a ' +
    'reason) and the fingerprint of the answer. Read a skill next with get_skill_manifest.',
  TASK_SKILLS_INPUT,
);

const GET_SKILL_MANIFEST = spec(
  'get_skill_manifest',
  "A skill version's manifest",
  'Read one version of a skill to activate it: its name, scope, version and content_hash, its files (path, size, ' +
    'sha256, mode), its frontmatter (description, metadata), its tool policy (allowed_tools, requires) and, where ' +
    'the service serves it, the text of SKILL.md (skill_md). Use the skill_id and version from get_task_skills or ' +
    'find_skills; then read the files SKILL.md refers to with read_skill_file.',
  MANIFEST_INPUT,
);

const READ_SKILL_FILE = spec(
  'read_skill_file',
  'One file of a skill',
  'Read one file of a skill version as text: references, scripts, templates (UTF-8 text up to 1 MiB). Use a path ' +
    "exactly as the manifest's files list it. Returns {skill_id, version, path, size, sha256, content_type, text}. " +
    'A binary or larger file is refused (code FILE_NOT_TEXT) with the URL to download it over HTTP.',
  FILE_INPUT,
);

const CHECK_TOOLS = spec(
  'check_tools',
  'Tools the active skills allow',
  "Check which tools the task's active skills allow before you use one: a tool is visible only when every active " +
    'skill that restricts tools allows it. skills: the active skills (default: the preload skills); tools: the ' +
    'tools you have; call: {tool, command?} to check one call. Returns skills, visible_tools (null when nothing ' +
    'restricts), requires (bins and env the skills need) and, with call, {allowed, code, denied_by}.',
  CHECK_TOOLS_INPUT,
);

const FIND_SKILLS = spec(
  'find_skills',
  'Search skills',
  'Search the skills you may read by what they do, when the task needs a capability none of its skills has. ' +
    'Returns {items: [{skill_id, name, description, namespace, is_public, version, content_hash, allowed_tools, ' +
    'score}], query}, best first (score 0-1; a name match ranks above a description match above a SKILL.md match). ' +
    'Read a hit with get_skill_manifest.',
  FIND_INPUT,
);

/** A manifest path as the single-file route takes it: each segment percent-encoded, slashes kept. */
function filePathUrl(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The stream's bytes, or null (and the stream destroyed) past `max`. */
async function readAtMost(stream: Readable, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += bytes.length;
    if (total > max) {
      stream.destroy();
      return null;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

export class McpToolServer {
  private readonly pipe: ValidationPipe = createValidationPipe();
  /**
   * Validates what a client answers to server requests (elicitation), which these tools never
   * send. Each server would build its own Ajv instance, half the cost of a request: one is shared.
   */
  private readonly jsonSchemaValidator = new AjvJsonSchemaValidator();

  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly policy: TaskToolPolicyService,
    private readonly sources: McpSources,
    private readonly logger: AppLogger,
  ) {}

  /**
   * A server for what `principal` may use, connected to a transport for one stateless POST
   * (answered as JSON) of `body`, and the body to hand the transport. Params that do not fit the
   * request are answered -32602 in the server's place, and an internal error leaves without its
   * message (logged instead).
   */
  async open(
    principal: Principal,
    origin: string,
    body: unknown,
  ): Promise<{ server: McpServer; transport: StreamableHTTPServerTransport; body: unknown }> {
    const { server, tools } = this.server(principal, origin);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const { message: sent, hidden } = withoutInternals(message);
      if (hidden !== undefined) this.logger.write('error', 'mcp request failed', { error: hidden });
      return send(sent, options);
    };
    const refusal = paramsRefusal(body, tools);
    if (!refusal) return { server, transport, body: forTransport(body) };
    // Delivered where the server would answer, so the transport's own checks (Accept, protocol
    // version) still come first and the answer is correlated with the request as any other.
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('id' in message && message.id === refusal.id && 'method' in message) void transport.send(refusal);
      else deliver?.(message, extra);
    };
    return { server, transport, body: forTransport(body) };
  }

  /**
   * A server offering what `principal` may use, and the names of its tools: a task token never
   * gets find_skills (users only, docs/search.md). `origin` (scheme and host of the request) builds
   * download URLs.
   */
  private server(principal: Principal, origin: string): { server: McpServer; tools: ReadonlySet<string> } {
    const tools = new Set<string>();
    const server = new McpServer(
      { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: this.jsonSchemaValidator },
    );
    const add = <S extends z.ZodObject>(
      tool: ToolSpec<S>,
      run: (args: z.output<S>) => Promise<CallToolResult>,
    ): void => {
      tools.add(tool.name);
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.listed, annotations: READ_ONLY },
        async (args: unknown) => {
          try {
            return await run(parseInput(tool.input, args));
          } catch (err) {
            return errorResult(err, this.logger, tool.name);
          }
        },
      );
    };
    const { search, files, manifests } = this.sources;

    if (principal.kind === 'user') {
      add(FIND_SKILLS, async ({ query, limit, min_score }) => {
        const answer = await search.search(principal, { q: query, limit, min_score });
        return toolResult(answer, searchText(answer));
      });
    }
    add(GET_TASK_SKILLS, async ({ task_id }) => {
      const answer = toTaskSkillsDto(await this.resolution.resolve(principal, task_id));
      return toolResult(answer, taskSkillsText(answer));
    });
    add(GET_SKILL_MANIFEST, async ({ skill_id, version }) => {
      await this.validated(VersionQuery, { version }, 'query');
      const manifest = await manifests.manifest(principal, skill_id, version);
      return toolResult(manifest, manifestText(manifest));
    });
    add(READ_SKILL_FILE, async ({ skill_id, path, version }) => {
      await this.validated(VersionQuery, { version }, 'query');
      return this.fileResult(await files.open(principal, skill_id, path, version), origin);
    });
    add(CHECK_TOOLS, async ({ task_id, ...body }) => {
      const checked = await this.validated(ToolCheckBody, body, 'body');
      const answer = await this.policy.toolCheck(principal, task_id, checked);
      return toolResult(answer, toolCheckText(answer));
    });
    registerSkills(server, principal, this.sources.skills);
    return { server, tools };
  }

  /** The HTTP route's DTO rules, through the global pipe (VALIDATION_FAILED listing every problem). */
  private async validated<T>(metatype: new () => T, value: object, type: 'body' | 'query'): Promise<T> {
    return (await this.pipe.transform(value, { type, metatype })) as T;
  }

  /** UTF-8 text up to 1 MiB as text; anything else refused, naming the single-file URL. */
  private async fileResult(file: OpenedSkillFile, origin: string): Promise<CallToolResult> {
    const url = `${origin}/api/skills/${file.skill_id}/files/${filePathUrl(file.path)}?version=${file.version}`;
    const refuse = (why: string): CallToolResult =>
      toolError({
        code: 'FILE_NOT_TEXT',
        message: `${file.path} ${why}: download it from ${url} with the same Authorization header`,
      });
    if (file.size > MAX_TEXT_FILE_BYTES) {
      file.stream.destroy();
      return refuse(`is ${file.size} bytes, over the 1 MiB read_skill_file returns as text`);
    }
    const bytes = await readAtMost(file.stream, MAX_TEXT_FILE_BYTES);
    if (bytes === null) return refuse('is over the 1 MiB read_skill_file returns as text');
    if (!isUtf8(bytes) || bytes.includes(0)) return refuse(`is not UTF-8 text (${file.content_type})`);
    const text = bytes.toString('utf8');
    const { skill_id, version, path, size, sha256, content_type } = file;
    return toolResult({ skill_id, version, path, size, sha256, content_type, text }, text);
  }
}
