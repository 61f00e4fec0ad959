// JSON bodies: at most 1 MiB (413 BODY_TOO_LARGE); a body of another media type is never read, and
// is marked so that a route taking a JSON body answers 415 (docs/api.md#media-types); bytes that
// are not UTF-8 JSON -> 400 BAD_REQUEST
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

/** What the body parser reads: `application/json` and the `+json` types. */
const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * `req.body` of a request that carries a body this parser does not read (another media type, or
 * none named). It stays unread; a route that takes a JSON body refuses it with 415 in the global
 * pipe, a multipart route's parser replaces it, and every other route ignores it. Without the
 * mark such a body would reach a handler as "no body", and a `PUT` would reset every optional
 * field to its default.
 */
export class UnreadBody {
  constructor(readonly contentType: string | undefined) {}

  /** 415: the route reads JSON and was sent something else. */
  refusal(): DomainError {
    const named =
      this.contentType === undefined
        ? 'no Content-Type'
        : `Content-Type ${JSON.stringify(this.contentType.slice(0, 100))}`;
    return new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The body was sent with ${named}: this route reads application/json (package uploads: multipart/form-data). Nothing was read or stored`,
    );
  }
}

/** A body of at least one byte, by its length or its chunked encoding. */
function carriesBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

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
  const parse = json({ limit: MAX_JSON_BYTES, strict: true, type: JSON_TYPES, verify: verifyRawBody });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (err?: unknown) => {
      const shape = err as { type?: string; problem?: string } | undefined;
      if (shape?.type === SHAPE_FAILED && shape.problem) return next(DomainError.validation([shape.problem]));
      if (err) return next(err);
      if (req.body === undefined) {
        if (carriesBody(req)) req.body = new UnreadBody(req.headers['content-type']);
      } else if (req.is(JSON_TYPES)) {
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
