// Gives every request an id (kept from X-Request-Id when it is safe), sends it back, and logs
// one line per request with no headers, query strings or bodies.
import { randomUUID } from 'node:crypto';
import { NextFunction, Request, Response } from 'express';
import { AppLogger } from '../logging/app-logger';
import { requestContext } from '../logging/request-context';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdMiddleware(logger: AppLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const ctx = { requestId } as { requestId: string; userId?: number };
    if (logger.enabled('info')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
        requestContext.run(ctx, () =>
          logger.write('info', 'request', {
            method: req.method,
            path: req.path,
            status: res.statusCode,
            duration_ms: Math.round(durationMs * 10) / 10,
          }),
        );
      });
    }
    requestContext.run(ctx, () => next());
  };
}
