// JSON-RPC 2.0 as the MCP endpoint exchanges it, described for the OpenAPI document only: the
// body is read by the MCP transport, never by the validation pipe.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const ID = { oneOf: [{ type: 'string' }, { type: 'integer' }] };

export class JsonRpcRequestDto {
  @ApiProperty({ enum: ['2.0'] }) jsonrpc: '2.0';
  @ApiPropertyOptional({ ...ID, description: 'Absent for a notification', example: 1 }) id?: string | number;
  @ApiProperty({ example: 'tools/call', description: 'initialize, ping, tools/list, tools/call, skills/list, skills/get, resources/list, resources/read, resources/templates/list, resources/directory/read, notifications/…' })
  method: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { name: 'get_task_skills', arguments: { task_id: 12 } },
  })
  params?: Record<string, unknown>;
}

/** Messages a client sends, each valid on its own (the endpoint is stateless). */
export const JSON_RPC_EXAMPLES = {
  callTool: {
    summary: "tools/call: task 1's skills as exact refs (the first task of a fresh install)",
    value: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_task_skills', arguments: { task_id: 1 } },
    },
  },
  listTools: {
    summary: 'tools/list: the tools this caller may use',
    value: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  },
  listSkills: {
    summary: 'skills/list: the skills this caller may read, as the MCP Skills extension lists them',
    value: { jsonrpc: '2.0', id: 4, method: 'skills/list', params: {} },
  },
  initialize: {
    summary: 'initialize (optional)',
    value: {
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'operator', version: '1' } },
    },
  },
};

export class JsonRpcErrorDto {
  @ApiProperty({ example: -32700 }) code: number;
  @ApiProperty({ example: 'Parse error: Invalid JSON-RPC message' }) message: string;
  @ApiPropertyOptional() data?: unknown;
}

export class JsonRpcResponseDto {
  @ApiProperty({ enum: ['2.0'] }) jsonrpc: '2.0';
  @ApiProperty({ ...ID, nullable: true, description: "The request's id; null when it could not be read" })
  id: string | number | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'On success: for tools/call, {content, structuredContent, isError?}',
  })
  result?: Record<string, unknown>;
  @ApiPropertyOptional({ type: JsonRpcErrorDto }) error?: JsonRpcErrorDto;
}
