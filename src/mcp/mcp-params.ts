// JSON-RPC params checked before the SDK's request handlers see them. The SDK parses a request's
// params with its own schema inside the handler and answers a mismatch as -32603 (internal
// error) with the validator's dump as the message; a request whose params are not an object at
// all it answers as a parse error. Here every request this endpoint serves is checked against the
// same schemas first, and a mismatch, or a tool that is not offered, is -32602 (invalid params)
// with a short message. Arguments that are an object but break a tool's own schema are the tool's
// to refuse (VALIDATION_FAILED as a tool result, which a model can read and correct).
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import {
  BoundedListResourcesRequestSchema,
  BoundedListResourceTemplatesRequestSchema,
  BoundedReadResourceRequestSchema,
  DirectoryReadRequestSchema,
  SkillsGetRequestSchema,
  SkillsListRequestSchema,
} from './mcp-skills-schemas';
import { INVALID_CURSOR } from './skill-pages';

/**
 * The requests the server answers (every other method is -32601 from the SDK), each with the
 * schema the SDK parses it with. A method added to the server is added here.
 */
export const SERVED_REQUESTS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  // The MCP Skills extension and the resources it rides on (mcp-skills.ts), URIs and cursors bounded.
  ['resources/list', BoundedListResourcesRequestSchema],
  ['resources/templates/list', BoundedListResourceTemplatesRequestSchema],
  ['resources/read', BoundedReadResourceRequestSchema],
  ['resources/directory/read', DirectoryReadRequestSchema],
  ['skills/list', SkillsListRequestSchema],
  ['skills/get', SkillsGetRequestSchema],
]);

/**
 * Lists answered in one page: this service never wrote a cursor for them, so any cursor is one it
 * did not write (docs/mcp-skills.md#pagination), refused as every MCP list refuses one.
 */
const ONE_PAGE_LISTS: ReadonlySet<string> = new Set(['tools/list', 'resources/templates/list']);

/** Enough to correct a request; the rest would only lengthen the answer. */
const MAX_PROBLEMS = 10;
const MAX_SHOWN = 64;

/** A client's string (a tool name, a key in a path) cut to fit a message. */
function shown(value: string): string {
  return value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}...` : value;
}

const EXPECTED: Record<string, string> = {
  object: 'an object',
  record: 'an object',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'a list',
};

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** One broken rule in words, naming the field from inside `params` (`clientInfo.name`). */
function problem(issue: z.core.$ZodIssue, request: unknown): string {
  const inParams = issue.path[0] === 'params' ? issue.path.slice(1) : issue.path;
  const field = inParams.length ? inParams.map((key) => shown(String(key))).join('.') : 'params';
  switch (issue.code) {
    case 'invalid_type':
      if (valueAt(request, issue.path) === undefined) return `${field} is required`;
      return `${field} must be ${EXPECTED[issue.expected] ?? issue.expected}`;
    case 'invalid_union':
    case 'invalid_value':
      return `${field} has a value that is not allowed`;
    default:
      return `${field}: ${issue.message}`;
  }
}

function invalidParams(id: RequestId, message: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message } };
}

/**
 * The -32602 answer a request deserves, or null when its params fit (or when it is no request this
 * endpoint serves: a notification, a response, an unknown method, which the SDK answers). `body`
 * is the message as the client sent it, before the transport checks it; `tools` are the tools
 * the caller is offered.
 */
export function paramsRefusal(body: unknown, tools: ReadonlySet<string>): JSONRPCErrorResponse | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { params, ...request } = body as Record<string, unknown>;
  if (!isJSONRPCRequest(request)) return null;
  const schema = SERVED_REQUESTS.get(request.method);
  if (!schema) return null;
  const message = params === undefined ? { method: request.method } : { method: request.method, params };
  const parsed = schema.safeParse(message);
  if (!parsed.success) {
    const problems = [...new Set(parsed.error.issues.map((issue) => problem(issue, message)))];
    return invalidParams(
      request.id,
      `Invalid params for ${request.method}: ${problems.slice(0, MAX_PROBLEMS).join('; ')}`,
    );
  }
  if (
    ONE_PAGE_LISTS.has(request.method) &&
    (parsed.data as { params?: { cursor?: string } }).params?.cursor !== undefined
  ) {
    return invalidParams(request.id, INVALID_CURSOR);
  }
  if (request.method === 'tools/call') {
    const { name } = (parsed.data as z.infer<typeof CallToolRequestSchema>).params;
    // The same answer for a tool that does not exist and one the caller is not offered.
    if (!tools.has(name)) return invalidParams(request.id, `Unknown tool: ${shown(name)}`);
  }
  return null;
}

/**
 * `body` as the transport is to read it: a request whose params are no object would be refused by
 * its message schema as a parse error, before the request could be answered -32602 (or -32601
 * for a method not served), so such params are left out.
 */
export function forTransport(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { params, ...request } = body as Record<string, unknown>;
  const isObject = typeof params === 'object' && params !== null && !Array.isArray(params);
  return params === undefined || isObject || !isJSONRPCRequest(request) ? body : request;
}

/**
 * An internal error as it leaves: the SDK writes the thrown error's own message into it; the
 * client gets only the code and "Internal error" (what the message said is for the log).
 */
export function withoutInternals(message: JSONRPCMessage): { message: JSONRPCMessage; hidden?: string } {
  const internal: number = ErrorCode.InternalError;
  if (!isJSONRPCErrorResponse(message) || message.error.code !== internal) return { message };
  if (message.error.message === 'Internal error' && message.error.data === undefined) return { message };
  return {
    message: { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InternalError, message: 'Internal error' } },
    hidden: message.error.message,
  };
}
