// Times every request and labels it with the route template that served it (`/api/skills/:id`),
// read when the response ends, so a raw path never becomes a label value.
import { NextFunction, Request, Response } from 'express';
import { MetricsService, UNMATCHED_ROUTE } from './metrics.service';

/**
 * The matched route's template, or UNMATCHED_ROUTE when no route served the request. Nest
 * registers every controller route on the application's own router with its whole path; the
 * one route matched inside a mounted router is Nest's catch-all 404 under the global prefix.
 */
export function routeTemplate(req: Request): string {
  const route = (req as { route?: { path?: unknown } }).route;
  const path = route?.path;
  return typeof path === 'string' && !req.baseUrl ? path : UNMATCHED_ROUTE;
}

export function httpMetricsMiddleware(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeRequest(req.method, routeTemplate(req), res.statusCode, seconds);
    });
    next();
  };
}
