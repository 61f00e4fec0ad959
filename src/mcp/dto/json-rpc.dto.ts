// JSON-RPC 2.0 as the MCP endpoint exchanges it, described for the OpenAPI document only: the
// body is read by the MCP transport, never by the validation pipe.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const ID = { oneOf: [{ type: 'string' }, { type: 'integer' }] };

export class JsonRpcRequestDto {
  @ApiProperty({ enum: ['2.0'] }) jsonrpc: '2.0';
  @ApiPropertyOptional({ ...ID, description: 'Absent for a notification', example: 1 }) id?: string | number;
  @ApiProperty({ example: 'tools/call', description: 'initialize, tools/list, tools/call, ping, notifications/…' })
  method: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { name: 'get_task_skills', arguments: { task_id: 12 } },
  })
  params?: Record<string, unknown>;
}

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
