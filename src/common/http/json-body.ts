// JSON bodies: at most 1 MiB (413 BODY_TOO_LARGE), unparseable -> 400 BAD_REQUEST, and a parsed
// body must be an object nested at most 32 deep (400 VALIDATION_FAILED).
import { json, NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-error';

export const MAX_JSON_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 32;

export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

export function jsonBodyMiddleware() {
  const parse = json({ limit: MAX_JSON_BYTES, strict: true });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (req.body !== undefined && req.is('application/json')) {
        if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
          return next(DomainError.validation(['the body must be a JSON object']));
        }
        if (jsonDepthExceeds(req.body, MAX_JSON_DEPTH)) {
          return next(DomainError.validation([`the body must not be nested deeper than ${MAX_JSON_DEPTH} levels`]));
        }
      }
      next();
    });
  };
}
