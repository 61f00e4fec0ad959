// Streamable HTTP, stateless (docs/mcp.md#endpoint): every POST gets its own server and transport, built
// for the caller the global guard authenticated, and both are closed with the response.
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Principal } from '../auth/principal';
import { UnreadBody } from '../common/http/json-body';
import { McpTools } from './mcp-tools.service';

@Injectable()
export class McpEndpoint {
  constructor(private readonly tools: McpTools) {}

  /** One JSON-RPC message (already parsed by the global JSON body parser), answered as JSON. */
  async handle(principal: Principal, req: Request, res: Response): Promise<void> {
    const origin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    // A body of another media type is left to the transport, which answers its own 415.
    const parsed: unknown = req.body instanceof UnreadBody ? undefined : req.body;
    const { server, transport, body } = await this.tools.open(principal, origin, parsed);
    res.on('close', () => void server.close());
    await transport.handleRequest(req, res, body);
  }
}
