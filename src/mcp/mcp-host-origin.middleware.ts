// DNS-rebinding protection for the MCP endpoint: a request whose Host is not allowed, or whose
// Origin is sent and not allowed, is refused 403 before authentication and before MCP. It comes
// before authentication so that a page driving a browser cannot even learn whether a key works.
import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../common/errors/domain-error';
import { hostOriginRefusal } from '../common/http/host-origin';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

@Injectable()
export class McpHostOriginMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(req: Request, _res: Response, next: NextFunction): void {
    // The Host header itself: X-Forwarded-Host is the client's to write, whatever proxies say.
    const refusal = hostOriginRefusal(req.headers.host, req.headers.origin, this.config.mcpHostOrigin);
    if (refusal) throw new DomainError('FORBIDDEN', refusal.message, { header: refusal.header });
    next();
  }
}
