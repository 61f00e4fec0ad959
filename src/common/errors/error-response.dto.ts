// The one error shape (written by ErrorFilter), described for the OpenAPI document: its schema, one
// example answer per code (components.examples), and `ApiErrors`, which documents the error answers
// of an operation in one line.
import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from './domain-error';
import { STATUS_TEXT, WWW_AUTHENTICATE } from './error.filter';

export class ErrorResponseDto {
  @ApiProperty({ type: 'integer', example: 400 }) statusCode: number;
  @ApiProperty({ example: 'Bad Request' }) error: string;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description: 'A list for VALIDATION_FAILED (every broken rule), else one sentence',
  })
  message: string | string[];
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'VALIDATION_FAILED', description: 'Stable; test this' })
  code: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Structured facts of some codes' })
  details?: Record<string, unknown>;
  @ApiProperty({ example: '3f2a1c4e-8d2b-4b7e-9c1a-5e6f7a8b9c0d', description: 'Also sent as X-Request-Id' })
  requestId: string;
}

/** A code the document can show; INTERNAL is a bug, never a documented answer. */
export type DocumentedCode = Exclude<ErrorCode, 'INTERNAL'>;

interface ExampleAnswer {
  code: DocumentedCode;
  /** When the code answers with another status than its usual one. */
  status?: number;
  message: string | string[];
  details?: Record<string, unknown>;
}

/**
 * The example answer of each code, and of a few variants an operation may name instead
 * (`example`): tasks say `Task not found`, uploads are limited by count as well as by failures.
 */
const EXAMPLE_ANSWERS = {
  VALIDATION_FAILED: {
    code: 'VALIDATION_FAILED',
    message: ['property surprise should not exist', 'limit must not be greater than 100'],
  },
  SKILL_INVALID: {
    code: 'SKILL_INVALID',
    message: 'The skill package is invalid',
    details: {
      errors: [{ code: 'NAME_INVALID', message: 'name must be 1-64 characters of a-z, 0-9 and -', field: 'name' }],
      warnings: [],
    },
  },
  SKILL_SELECTION_INVALID: {
    code: 'SKILL_SELECTION_INVALID',
    message: 'Some selected skills are invalid',
    details: { invalid: [{ name: 'pdf-tools', reason: 'NOT_FOUND' }] },
  },
  NAME_MISMATCH: { code: 'NAME_MISMATCH', message: 'The package is named pdf-forms, the skill pdf-tools' },
  BAD_REQUEST: { code: 'BAD_REQUEST', message: 'The request body could not be parsed' },
  UNAUTHENTICATED: { code: 'UNAUTHENTICATED', message: 'Invalid, revoked or expired credentials' },
  FORBIDDEN: { code: 'FORBIDDEN', message: 'Forbidden' },
  HOST_NOT_ALLOWED: {
    code: 'FORBIDDEN',
    message:
      'The host "evil.example.com" is not allowed here: only loopback hosts and those named in MCP_ALLOWED_HOSTS are',
    details: { header: 'Host' },
  },
  NOT_FOUND: { code: 'NOT_FOUND', message: 'Not found' },
  TASK_NOT_FOUND: { code: 'NOT_FOUND', message: 'Task not found' },
  METHOD_NOT_ALLOWED: {
    code: 'METHOD_NOT_ALLOWED',
    message: 'The MCP endpoint is stateless: send JSON-RPC messages with POST',
  },
  USER_EXISTS: { code: 'USER_EXISTS', message: 'User alice already exists' },
  GROUP_EXISTS: { code: 'GROUP_EXISTS', message: 'Group team-a already exists' },
  SKILL_EXISTS: { code: 'SKILL_EXISTS', message: 'A skill named pdf-tools already exists in this scope' },
  NAME_TAKEN: { code: 'NAME_TAKEN', message: 'The name release-notes is taken in this scope' },
  SKILL_REFERENCED: {
    code: 'SKILL_REFERENCED',
    message: 'The skill is still selected; delete with force=true to leave those selections unresolved',
    details: { ghosts: [3], subscriptions: [], tasks: [12], count: 2 },
  },
  IN_USE: { code: 'IN_USE', message: 'The ghost is used by 1 bot(s)', details: { bots: [4] } },
  LAST_OWNER: { code: 'LAST_OWNER', message: 'The group must keep at least one direct Owner' },
  VERSION_REVOKED: { code: 'VERSION_REVOKED', message: 'Version 3 is revoked: its status cannot change' },
  VERSION_GONE: { code: 'VERSION_REVOKED', status: 410, message: 'Version 3 of pdf-tools is revoked' },
  VERSION_YANKED: { code: 'VERSION_YANKED', message: 'A tag cannot point at version 3: it is yanked' },
  VERSION_TAGGED: {
    code: 'VERSION_TAGGED',
    message: 'Version 3 is tagged: move its tags before yanking it',
    details: { tags: ['stable'] },
  },
  REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: 'The request did not arrive within the time limit' },
  PACKAGE_TOO_LARGE: { code: 'PACKAGE_TOO_LARGE', message: 'The package is larger than the upload limit' },
  BODY_TOO_LARGE: { code: 'BODY_TOO_LARGE', message: 'The request body is larger than the limit' },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message:
      'The body was sent with Content-Type "text/plain;charset=UTF-8": this route reads application/json (package uploads: multipart/form-data). Nothing was read or stored',
  },
  RATE_LIMITED: {
    code: 'RATE_LIMITED',
    message: 'Too many failed authentications from this address; retry in 42 s',
  },
  UPLOADS_BUSY: {
    code: 'RATE_LIMITED',
    message: 'At most 4 uploads per user may run at once',
    details: { retry_after: 1 },
  },
  DATABASE_UNAVAILABLE: {
    code: 'DATABASE_UNAVAILABLE',
    message: 'The database did not answer in time or is unreachable; try again',
  },
  STORAGE_UNAVAILABLE: { code: 'STORAGE_UNAVAILABLE', message: 'The package store did not answer in time' },
  SWEEP_RUNNING: {
    code: 'IN_USE',
    message: 'A garbage sweep is running (here or on another replica); try again when it ends',
  },
  VERSION_NOT_REVOKED: {
    code: 'VERSION_NOT_REVOKED',
    message: "Version 3 is active: only a revoked version's bytes can be purged",
  },
  GIT_URL_INVALID: {
    code: 'GIT_URL_INVALID',
    message: 'url must be an https:// (or allowed http://) URL of a repository, without credentials',
  },
  GIT_HOST_NOT_ALLOWED: {
    code: 'GIT_HOST_NOT_ALLOWED',
    message: 'Imports from git.example.com are not allowed here (GIT_ALLOWED_HOSTS)',
  },
  GIT_REF_NOT_FOUND: { code: 'GIT_REF_NOT_FOUND', message: 'The repository has no branch, tag or commit release-9' },
  GIT_PATH_NOT_FOUND: { code: 'GIT_PATH_NOT_FOUND', message: 'skills/pdf-tools is not a folder at commit 4b825dc' },
  GIT_TOO_MANY_SKILLS: {
    code: 'GIT_TOO_MANY_SKILLS',
    message: 'The folder holds 73 skills; one import takes at most 50. Nothing was imported',
    details: { count: 73, max: 50 },
  },
  GIT_LFS_UNSUPPORTED: {
    code: 'GIT_LFS_UNSUPPORTED',
    message: 'Git LFS files cannot be imported: pdf-tools/assets/form.pdf',
    details: { paths: ['pdf-tools/assets/form.pdf'] },
  },
  GIT_FETCH_TOO_LARGE: {
    code: 'GIT_FETCH_TOO_LARGE',
    message: 'The fetch passed the 268435456 bytes an import may read',
  },
  GIT_FETCH_FAILED: { code: 'GIT_FETCH_FAILED', message: 'The remote answered: repository not found' },
  GIT_TIMEOUT: { code: 'GIT_TIMEOUT', message: 'The import did not finish within 60000 ms' },
  IMPORTS_BUSY: {
    code: 'RATE_LIMITED',
    message: 'One import per user may run at once',
    details: { retry_after: 5 },
  },
} as const satisfies Record<string, ExampleAnswer>;

export type ErrorExampleName = keyof typeof EXAMPLE_ANSWERS;

/** What each code means when an operation does not say more. */
const WHEN: Record<DocumentedCode, string> = {
  VALIDATION_FAILED: 'the body, form or query breaks a rule; `message` lists every one',
  SKILL_INVALID: 'the package breaks the skill format; `details.errors` lists every problem',
  SKILL_SELECTION_INVALID: 'a selected name does not resolve for its owner; `details.invalid` lists every one',
  NAME_MISMATCH: 'the package names another skill',
  BAD_REQUEST: 'the body is not UTF-8 JSON',
  UNAUTHENTICATED: 'missing, wrong, revoked or expired credentials',
  FORBIDDEN: 'the caller may read it but may not do this',
  NOT_FOUND: 'no such thing, or one the caller may not read (the same answer)',
  METHOD_NOT_ALLOWED: 'the method is not supported here',
  USER_EXISTS: 'a user of that name exists',
  GROUP_EXISTS: 'a group of that name exists',
  SKILL_EXISTS: 'a skill of that name exists in the scope',
  NAME_TAKEN: 'an active resource of that name exists in the scope',
  SKILL_REFERENCED: 'ghosts, subscriptions or tasks select the skill (`details` lists those the caller may read)',
  IN_USE: 'an active resource uses it (`details` lists them)',
  LAST_OWNER: 'the group would lose its last direct Owner',
  VERSION_REVOKED: 'the version is revoked, which is final',
  VERSION_YANKED: 'a tag cannot point at a yanked or revoked version',
  VERSION_TAGGED: 'tags point at the version (`details.tags`): move them before yanking it',
  REQUEST_TIMEOUT: 'the request did not arrive within the time limit; nothing is stored',
  PACKAGE_TOO_LARGE: 'the package is over the upload limit',
  BODY_TOO_LARGE: 'the JSON body is over 1 MiB',
  UNSUPPORTED_MEDIA_TYPE: 'a body sent as another media type than the route reads, or with none named; nothing is read',
  RATE_LIMITED:
    'too many failed authentications from this address (every request carrying credentials from it, until `Retry-After`)',
  DATABASE_UNAVAILABLE: 'the database did not answer in time',
  STORAGE_UNAVAILABLE: 'the package store failed or did not answer in time; nothing was stored',
  VERSION_NOT_REVOKED: 'only the bytes of a revoked version can be purged',
  GIT_URL_INVALID:
    'the URL is not an https:// (or allowed http://) repository URL, holds credentials, or the URL, ref or path could be read as an option or leave the repository',
  GIT_HOST_NOT_ALLOWED: 'the host (or a redirect) is not in GIT_ALLOWED_HOSTS; with that setting empty, every import',
  GIT_REF_NOT_FOUND: 'the repository has no such branch, tag or commit',
  GIT_PATH_NOT_FOUND: 'the path is not a folder at the commit',
  GIT_TOO_MANY_SKILLS: 'the folder holds more than 50 skills; nothing is imported',
  GIT_LFS_UNSUPPORTED: 'a file of the folder is a Git LFS pointer (`details.paths`); nothing is imported',
  GIT_FETCH_TOO_LARGE: 'the remote sent more than GIT_MAX_FETCH_BYTES; nothing is imported',
  GIT_FETCH_FAILED: 'the remote failed or refused; `message` carries its answer, without credentials',
  GIT_TIMEOUT: 'the remote did not finish within GIT_IMPORT_TIMEOUT_MS; nothing is imported',
};

/** An error answer of one operation: a code, or a code with this operation's own wording and example. */
export type ErrorCase =
  DocumentedCode | { code: DocumentedCode; when?: string; example?: ErrorExampleName; status?: number };

const EXAMPLE_REF = (name: ErrorExampleName) => `#/components/examples/${name}`;
const REQUEST_ID_HEADER = 'X-Request-Id';
const RETRY_AFTER_HEADER = 'Retry-After';
const WWW_AUTHENTICATE_HEADER = 'WWW-Authenticate';

/** Headers shared by error answers, registered once in components.headers. */
export const ERROR_HEADERS = {
  [REQUEST_ID_HEADER]: {
    description: 'The requestId of the body (also on every other answer)',
    schema: { type: 'string' },
  },
  [RETRY_AFTER_HEADER]: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  [WWW_AUTHENTICATE_HEADER]: {
    description: 'The scheme the API takes (an API key or task token as a bearer token); no OAuth flow is offered',
    schema: { type: 'string', example: WWW_AUTHENTICATE },
  },
};

/** The example answers, keyed as operations refer to them (`#/components/examples/<name>`). */
export function errorExamples(): Record<string, { summary: string; value: Record<string, unknown> }> {
  return Object.fromEntries(
    Object.entries(EXAMPLE_ANSWERS).map(([name, answer]: [string, ExampleAnswer]) => {
      const statusCode = answer.status ?? ERROR_STATUS[answer.code];
      return [
        name,
        {
          summary: `${statusCode} ${answer.code}`,
          value: {
            statusCode,
            error: STATUS_TEXT[statusCode],
            message: answer.message,
            code: answer.code,
            ...(answer.details ? { details: answer.details } : {}),
            requestId: '3f2a1c4e-8d2b-4b7e-9c1a-5e6f7a8b9c0d',
          },
        },
      ];
    }),
  );
}

/**
 * Documents error answers: one response per status, each with the error schema, the codes and when
 * they happen in its description, and one example per code. Statuses already documented at the
 * class level (ApiAuth's 401, 429 and 503) are replaced when an operation names them again.
 */
export function ApiErrors(...cases: ErrorCase[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, Array<{ code: DocumentedCode; when: string; example: ErrorExampleName }>>();
  for (const c of cases) {
    const { code, when, example, status: given } = typeof c === 'string' ? { code: c } : c;
    const status = given ?? ERROR_STATUS[code];
    const list = byStatus.get(status) ?? [];
    list.push({ code, when: when ?? WHEN[code], example: example ?? code });
    byStatus.set(status, list);
  }
  return applyDecorators(
    ApiExtraModels(ErrorResponseDto),
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({
        status,
        description: list.map(({ code, when }) => `\`${code}\`: ${when}`).join('\n\n'),
        headers: {
          [REQUEST_ID_HEADER]: { $ref: `#/components/headers/${REQUEST_ID_HEADER}` },
          ...(status === 429 ? { [RETRY_AFTER_HEADER]: { $ref: `#/components/headers/${RETRY_AFTER_HEADER}` } } : {}),
          ...(status === 401
            ? { [WWW_AUTHENTICATE_HEADER]: { $ref: `#/components/headers/${WWW_AUTHENTICATE_HEADER}` } }
            : {}),
        },
        content: {
          'application/json': {
            schema: { $ref: getSchemaPath(ErrorResponseDto) },
            examples: Object.fromEntries(list.map(({ example }) => [example, { $ref: EXAMPLE_REF(example) }])),
          },
        },
      }),
    ),
  );
}

/** `NOT_FOUND` as task routes answer it. */
export const TASK_NOT_FOUND: ErrorCase = {
  code: 'NOT_FOUND',
  when: '`Task not found`: no such task, or one the caller (or the token) may not read',
  example: 'TASK_NOT_FOUND',
};

/** The bytes of a revoked version (docs/resolution.md#version-lifecycle). */
export const VERSION_GONE: ErrorCase = {
  code: 'VERSION_REVOKED',
  status: 410,
  when: 'the version is revoked: its bytes are gone for everyone but admins, and for admins too once purged',
  example: 'VERSION_GONE',
};

/** The 503s of a route that reads or writes package bytes: the database's, and the package store's (docs/storage.md). */
export const STORE_UNAVAILABLE: ErrorCase[] = ['DATABASE_UNAVAILABLE', 'STORAGE_UNAVAILABLE'];

/** What every route that reads a JSON body may answer besides its own rules. */
export const JSON_BODY_ERRORS: ErrorCase[] = [
  'BAD_REQUEST',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_TIMEOUT',
];

/** What every upload route may answer besides its own rules (a package that breaks the format: SKILL_INVALID). */
export const UPLOAD_ERRORS: ErrorCase[] = [
  {
    code: 'VALIDATION_FAILED',
    when: 'no `file`, another file field or two files, or a form field breaking a rule (such as `public=true` outside `default`)',
  },
  'PACKAGE_TOO_LARGE',
  { code: 'UNSUPPORTED_MEDIA_TYPE', when: 'a body that is not multipart/form-data; nothing is read' },
  'REQUEST_TIMEOUT',
  'RATE_LIMITED',
  {
    code: 'RATE_LIMITED',
    when: 'too many uploads at once (4 per user, 2 x cores inspections per replica); wait `Retry-After`',
    example: 'UPLOADS_BUSY',
  },
];
