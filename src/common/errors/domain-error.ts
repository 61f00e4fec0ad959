// Errors raised below the controllers: a stable code, a message and optional details, no HTTP.
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  SKILL_INVALID: 400,
  SKILL_SELECTION_INVALID: 400,
  NAME_MISMATCH: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  USER_EXISTS: 409,
  GROUP_EXISTS: 409,
  SKILL_EXISTS: 409,
  NAME_TAKEN: 409,
  SKILL_REFERENCED: 409,
  IN_USE: 409,
  LAST_OWNER: 409,
  // docs/resolution.md#version-lifecycle; VERSION_REVOKED is 410 on the bytes of a revoked version.
  VERSION_REVOKED: 409,
  VERSION_YANKED: 409,
  VERSION_TAGGED: 409,
  // docs/storage.md#purge: only a revoked version's bytes are purged.
  VERSION_NOT_REVOKED: 409,
  REQUEST_TIMEOUT: 408,
  PACKAGE_TOO_LARGE: 413,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  DATABASE_UNAVAILABLE: 503,
  // docs/storage.md#when-the-store-does-not-answer
  STORAGE_UNAVAILABLE: 503,
  // docs/publishing.md#importing-from-git
  GIT_URL_INVALID: 400,
  GIT_HOST_NOT_ALLOWED: 400,
  GIT_REF_NOT_FOUND: 400,
  GIT_PATH_NOT_FOUND: 400,
  GIT_TOO_MANY_SKILLS: 400,
  GIT_LFS_UNSUPPORTED: 400,
  GIT_FETCH_TOO_LARGE: 413,
  GIT_FETCH_FAILED: 502,
  GIT_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class DomainError extends Error {
  /** The message as sent: a list where every broken rule is reported (VALIDATION_FAILED). */
  readonly body: string | string[];

  constructor(
    readonly code: ErrorCode,
    message: string | string[],
    readonly details?: Record<string, unknown>,
    /** The HTTP status when it is not the code's usual one (ERROR_STATUS). */
    readonly status?: number,
  ) {
    super(Array.isArray(message) ? message.join('; ') : message);
    this.body = message;
  }

  static notFound(message = 'Not found'): DomainError {
    return new DomainError('NOT_FOUND', message);
  }

  static forbidden(message = 'Forbidden'): DomainError {
    return new DomainError('FORBIDDEN', message);
  }

  /** The bytes of a revoked version: 410 VERSION_REVOKED (docs/resolution.md#version-lifecycle). */
  static versionGone(message: string): DomainError {
    return new DomainError('VERSION_REVOKED', message, undefined, 410);
  }

  static validation(messages: string[]): DomainError {
    return new DomainError('VALIDATION_FAILED', messages);
  }
}
