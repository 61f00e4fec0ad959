// Tool results (docs/mcp.md#tools): the HTTP answer's JSON as structuredContent with a short text
// rendering; a contract error as isError with {code, message} (and the route's details, when it
// has any) and the message as text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DomainError } from '../common/errors/domain-error';
import { AppLogger } from '../common/logging/app-logger';
import { isDatabaseUnavailable } from '../common/errors/pg-errors';

/** Codes only the MCP tools answer: a file read_skill_file cannot return as text. */
export type McpOnlyCode = 'FILE_NOT_TEXT';

export interface ToolError {
  code: DomainError['code'] | McpOnlyCode;
  message: string | string[];
  details?: Record<string, unknown>;
}

export function toolResult(structured: object, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

export function toolError(error: ToolError): CallToolResult {
  const text = Array.isArray(error.message) ? error.message.join('; ') : error.message;
  const structured = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return { isError: true, content: [{ type: 'text', text }], structuredContent: structured };
}

/** What the error filter would answer over HTTP, as a tool error; a fault is logged, never shown. */
export function errorResult(err: unknown, logger: AppLogger, tool: string): CallToolResult {
  if (err instanceof DomainError && err.code !== 'INTERNAL') {
    return toolError({ code: err.code, message: err.body, details: err.details });
  }
  if (isDatabaseUnavailable(err)) {
    return toolError({
      code: 'DATABASE_UNAVAILABLE',
      message: 'The database did not answer in time or is unreachable; try again',
    });
  }
  logger.write('error', 'mcp tool failed', {
    tool,
    error: err instanceof Error ? err.message : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  return toolError({ code: 'INTERNAL', message: 'Internal server error' });
}
