// The MCP tools as the app injects them. Their module (src/mcp/mcp-server.ts) and the SDK behind
// it (zod, Ajv, JSON Schema conversion: about 0.4 s of module loading, a fifth of a boot) are
// loaded on the first MCP request, not at boot.
import { Injectable } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Principal } from '../auth/principal';
import { AppLogger } from '../common/logging/app-logger';
import { TaskResolutionService } from '../resolution/task-resolution.service';
import { TaskToolPolicyService } from '../tool-policy/task-tool-policy.service';
import type * as McpServerModule from './mcp-server';
import { McpSources } from './mcp-sources';

@Injectable()
export class McpTools {
  private loaded?: McpServerModule.McpToolServer;

  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly policy: TaskToolPolicyService,
    private readonly sources: McpSources,
    private readonly logger: AppLogger,
  ) {}

  /**
   * A server offering what `principal` may use, connected to a transport for one request of
   * `body`, and the body to hand the transport. `origin` (scheme and host of the request) builds
   * download URLs.
   */
  open(
    principal: Principal,
    origin: string,
    body: unknown,
  ): Promise<{ server: McpServer; transport: StreamableHTTPServerTransport; body: unknown }> {
    return this.tools().open(principal, origin, body);
  }

  private tools(): McpServerModule.McpToolServer {
    if (!this.loaded) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose, see the top
      const { McpToolServer } = require('./mcp-server') as typeof McpServerModule;
      this.loaded = new McpToolServer(this.resolution, this.policy, this.sources, this.logger);
    }
    return this.loaded;
  }
}
