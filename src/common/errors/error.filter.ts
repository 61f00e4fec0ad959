// The one place where errors become HTTP answers: {statusCode, error, message, code, details?, requestId}.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import { Request, Response } from 'express';
import { isDatabaseUnavailable } from './pg-errors';
import { AppLogger } from '../logging/app-logger';
import { requestContext } from '../logging/request-context';
import { DomainError, ERROR_STATUS, ErrorCode } from './domain-error';

export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * Sent with every 401 (RFC 6750): the scheme the API takes, so a client with a wrong key reports
 * it, rather than taking the missing header for an invitation to an OAuth flow of its own.
 */
export const WWW_AUTHENTICATE = 'Bearer realm="skill-resolver"';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string | string[];
  code: ErrorCode;
  details?: Record<string, unknown>;
  requestId: string;
}

/** Errors that Nest or Express raise on their own, expressed as domain errors. */
function fromHttpException(err: HttpException, req: Request): DomainError {
  const status = err.getStatus() as HttpStatus;
  const message = err.message;
  switch (status) {
    case HttpStatus.NOT_FOUND:
      return DomainError.notFound();
    case HttpStatus.PAYLOAD_TOO_LARGE:
      return req.is('multipart/form-data')
        ? new DomainError('PACKAGE_TOO_LARGE', 'The package is larger than the upload limit')
        : new DomainError('BODY_TOO_LARGE', 'The request body is larger than the limit');
    case HttpStatus.UNAUTHORIZED:
      return new DomainError('UNAUTHENTICATED', message);
    case HttpStatus.FORBIDDEN:
      return DomainError.forbidden(message);
    case HttpStatus.BAD_REQUEST:
      return new DomainError('BAD_REQUEST', message);
    default:
      return new DomainError('INTERNAL', message);
  }
}

/** body-parser and multer errors carry a `status`/`type` instead of being HttpExceptions. */
function fromLowLevel(err: unknown, req: Request): DomainError | null {
  const e = err as { type?: string; status?: number; code?: string };
  if (e?.type === 'entity.too.large' || e?.code === 'LIMIT_FILE_SIZE') {
    return req.is('multipart/form-data')
      ? new DomainError('PACKAGE_TOO_LARGE', 'The package is larger than the upload limit')
      : new DomainError('BODY_TOO_LARGE', 'The request body is larger than the limit');
  }
  if (e?.type === 'entity.parse.failed' || e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new DomainError('BAD_REQUEST', 'The request body could not be parsed');
  }
  if (typeof e?.code === 'string') {
    const problem = multipartProblem(e.code, (err as { field?: string }).field);
    if (problem) return DomainError.validation([problem]);
  }
  return null;
}

/** What a multipart body that parsed but broke a rule did wrong, naming the field (multer's codes). */
function multipartProblem(code: string, field: string | undefined): string | null {
  const named = field ? `"${field}"` : 'a field';
  switch (code) {
    case 'LIMIT_UNEXPECTED_FILE':
    case 'LIMIT_FILE_COUNT':
      return field === 'file' || field === undefined
        ? 'file: send exactly one file, in the field "file"'
        : `${field}: unexpected file field ${named}; send the package in the field "file"`;
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_PART_COUNT':
      return 'the multipart body has too many fields: send "file" and the form fields the operation lists';
    case 'LIMIT_FIELD_KEY':
      return 'a multipart field name is too long';
    case 'LIMIT_FIELD_VALUE':
      return `${field ?? 'a field'}: the value is too long`;
    case 'MISSING_FIELD_NAME':
      return 'a multipart part has no field name';
    default:
      return null;
  }
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const error = this.toDomainError(exception, req);
    const statusCode = error.status ?? ERROR_STATUS[error.code];
    if (statusCode >= 500) {
      // Once the connection is closed (an upload cut at its time limit, a client gone) it is no server fault.
      this.logger.write(req.socket?.destroyed ? 'warn' : 'error', 'request failed', {
        method: req.method,
        path: req.path,
        error: exception instanceof Error ? exception.message : String(exception),
        stack: exception instanceof Error ? exception.stack : undefined,
      });
    }
    const requestId = requestContext.getStore()?.requestId ?? String(res.getHeader('x-request-id') ?? '');
    const body: ErrorBody = {
      statusCode,
      error: STATUS_TEXT[statusCode] ?? 'Error',
      message: error.body,
      code: error.code,
      ...(error.details ? { details: error.details } : {}),
      requestId,
    };
    if (res.headersSent) {
      res.end();
      return;
    }
    const retryAfter = error.details?.retry_after;
    if (statusCode === 429 && typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    if (statusCode === 401) res.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
    res.status(statusCode).json(body);
  }

  private toDomainError(exception: unknown, req: Request): DomainError {
    if (exception instanceof DomainError) return exception;
    // The router could not percent-decode a path segment: such a path names nothing (docs/limits.md#hostile-input).
    if (exception instanceof Error && exception.message.startsWith('Failed to decode param')) {
      return DomainError.notFound();
    }
    const lowLevel = fromLowLevel(exception, req);
    if (lowLevel) return lowLevel;
    if (exception instanceof HttpException) {
      // Nest wraps multer/body errors; look at the cause first.
      const cause = (exception as { cause?: unknown }).cause;
      return (cause !== undefined ? fromLowLevel(cause, req) : null) ?? fromHttpException(exception, req);
    }
    if (isDatabaseUnavailable(exception)) {
      return new DomainError(
        'DATABASE_UNAVAILABLE',
        'The database did not answer in time or is unreachable; try again',
      );
    }
    return new DomainError('INTERNAL', 'Internal server error');
  }
}
