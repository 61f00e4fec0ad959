import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowTaskToken, CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ReadOnlyRoute } from '../cache/write-invalidation.interceptor';
import { DomainError } from '../common/errors/domain-error';
import { ApiErrors, ErrorCase, ErrorResponseDto } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { JSON_RPC_EXAMPLES, JsonRpcRequestDto, JsonRpcResponseDto } from './dto/json-rpc.dto';
import { McpEndpoint } from './mcp-endpoint.service';

/** Refused before authentication, for every method of the route. */
const HOST_OR_ORIGIN: ErrorCase = {
  code: 'FORBIDDEN',
  when: 'the Host header names no allowed host (loopback on any port, or one of MCP_ALLOWED_HOSTS), or an Origin header is sent that is neither a loopback origin (http or https on localhost, 127.0.0.1 or [::1], any port) nor one of MCP_ALLOWED_ORIGINS; `details.header` says which. Answered before authentication',
  example: 'HOST_NOT_ALLOWED',
};

function methodNotAllowed(res: Response): never {
  res.setHeader('Allow', 'POST');
  throw new DomainError('METHOD_NOT_ALLOWED', 'The MCP endpoint is stateless: send JSON-RPC messages with POST');
}

/** The MCP endpoint (docs/mcp.md#endpoint): the same credentials, logging and metrics as every route. */
@ApiTags('mcp')
@ApiAuth()
@Controller('mcp')
export class McpController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @Post()
  @AllowTaskToken()
  // Tool calls only read: they leave the caches valid, as tool-check does.
  @ReadOnlyRoute()
  @ApiOperation({
    operationId: 'sendMcpMessage',
    summary: 'The Model Context Protocol over Streamable HTTP, stateless: one JSON-RPC message per POST',
    description:
      "Send `Accept: application/json, text/event-stream`. No session is needed: `initialize` is optional, and `tools/list`, `tools/call`, the Skills extension's `skills/list` and `skills/get`, and `resources/list`, `resources/read`, `resources/templates/list` and `resources/directory/read` work on their own (docs/mcp-skills.md). A task token sees only the tools it may use, for its own task. Params that do not fit a method, and a tool that is not offered, are the JSON-RPC error -32602; arguments that break a tool's input schema are its `VALIDATION_FAILED` tool result. One message per POST: a JSON-RPC batch (a JSON list) is 400 `VALIDATION_FAILED`. This page cannot drive the endpoint: Swagger UI sends `Accept: application/json` alone (406), and a browser sends the page's `Origin` (403 unless it is a loopback origin or `MCP_ALLOWED_ORIGINS` lists it). Try the examples with curl instead: `curl -s -H 'Authorization: Bearer <key>' -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '<example>' http://localhost:3000/api/mcp`. See docs/mcp.md#host-and-origin.",
  })
  @ApiBody({ type: JsonRpcRequestDto, examples: JSON_RPC_EXAMPLES })
  @ApiOkResponse({ description: 'The JSON-RPC response', type: JsonRpcResponseDto })
  @ApiResponse({ status: 202, description: 'A notification or response was accepted (no body)' })
  @ApiResponse({
    status: 406,
    description: 'A JSON-RPC error: the Accept header does not take both application/json and text/event-stream',
    type: JsonRpcResponseDto,
  })
  @ApiResponse({
    status: 415,
    description: 'A JSON-RPC error: the body is not application/json',
    type: JsonRpcResponseDto,
  })
  @ApiExtraModels(ErrorResponseDto, JsonRpcResponseDto)
  @ApiResponse({
    status: 400,
    description:
      '`BAD_REQUEST`, `VALIDATION_FAILED` in the error shape: a body that is not JSON, or not a JSON object within the limits of every JSON body; a JSON-RPC error: a JSON object that is no JSON-RPC message',
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    content: {
      'application/json': {
        schema: { oneOf: [{ $ref: getSchemaPath(ErrorResponseDto) }, { $ref: getSchemaPath(JsonRpcResponseDto) }] },
        examples: {
          BAD_REQUEST: { $ref: '#/components/examples/BAD_REQUEST' },
          VALIDATION_FAILED: { $ref: '#/components/examples/VALIDATION_FAILED' },
          JSON_RPC: {
            summary: 'A JSON object that is no JSON-RPC message',
            value: {
              jsonrpc: '2.0',
              id: null,
              error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' },
            },
          },
        },
      },
    },
  })
  @ApiErrors(HOST_OR_ORIGIN, 'BODY_TOO_LARGE', 'REQUEST_TIMEOUT')
  async post(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.handle(principal, req, res);
  }

  @Get()
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'openMcpEventStream',
    summary: 'Not supported: the endpoint is stateless and opens no event stream (405)',
  })
  @ApiErrors(HOST_OR_ORIGIN, { code: 'METHOD_NOT_ALLOWED', when: 'for every authenticated caller; Allow: POST' })
  get(@Res({ passthrough: true }) res: Response): never {
    return methodNotAllowed(res);
  }

  @Delete()
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'endMcpSession',
    summary: 'Not supported: the endpoint is stateless and has no session to end (405)',
  })
  @ApiErrors(HOST_OR_ORIGIN, { code: 'METHOD_NOT_ALLOWED', when: 'for every authenticated caller; Allow: POST' })
  remove(@Res({ passthrough: true }) res: Response): never {
    return methodNotAllowed(res);
  }
}
