// JSON bodies: at most 1 MiB (413 BODY_TOO_LARGE); bytes that are not UTF-8 JSON -> 400 BAD_REQUEST
// (checked on the raw bytes: the parser would decode them with replacement characters); depth and
// item counts are checked on the raw bytes too, before the parse; a parsed body must be an object
// that passes the budget walk (depth, item counts, storable strings: 400 VALIDATION_FAILED naming
// each path) before any DTO sees it. Query strings get the same string check on their raw bytes.
import { isUtf8 } from 'node:buffer';
import { json, NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { jsonBudgetProblems, queryStringProblems, rawJsonShapeProblem } from '../input-hygiene';

export { MAX_JSON_DEPTH } from '../input-hygiene';
export const MAX_JSON_BYTES = 1024 * 1024;

/** Marks a body refused on its raw bytes for breaking the depth or item-count rule. */
const SHAPE_FAILED = 'entity.shape.failed';

/**
 * body-parser's verify hook: the raw bytes, before they are decoded and parsed. Bytes that are not
 * UTF-8 answer 400 BAD_REQUEST; a body nested too deep or with too many items in one list or object
 * is refused before `JSON.parse` spends the event loop on it.
 */
function verifyRawBody(_req: Request, _res: Response, body: Buffer, encoding: string): void {
  if (encoding.toLowerCase() !== 'utf-8' || !isUtf8(body)) {
    // The type the error filter maps to BAD_REQUEST (an unparseable body).
    throw Object.assign(new Error('The request body is not valid UTF-8 JSON'), { type: 'entity.parse.failed' });
  }
  const problem = rawJsonShapeProblem(body);
  if (problem) throw Object.assign(new Error(problem), { type: SHAPE_FAILED, problem });
}

export function jsonBodyMiddleware() {
  const parse = json({ limit: MAX_JSON_BYTES, strict: true, verify: verifyRawBody });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (err?: unknown) => {
      const shape = err as { type?: string; problem?: string } | undefined;
      if (shape?.type === SHAPE_FAILED && shape.problem) return next(DomainError.validation([shape.problem]));
      if (err) return next(err);
      if (req.body !== undefined && req.is('application/json')) {
        if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
          return next(DomainError.validation(['the body must be a JSON object']));
        }
        const problems = jsonBudgetProblems(req.body);
        if (problems.length) return next(DomainError.validation(problems));
      }
      next();
    });
  };
}

/** Query parameters holding U+0000 or bytes that are not UTF-8: 400 before any parser decodes them. */
export function queryHygieneMiddleware() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const at = req.url.indexOf('?');
    const problems = at < 0 ? [] : queryStringProblems(req.url.slice(at + 1));
    next(problems.length ? DomainError.validation(problems) : undefined);
  };
}
