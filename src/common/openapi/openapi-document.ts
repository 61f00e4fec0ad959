// The OpenAPI document operators read in Swagger UI: tags in a useful order, the credential schemes,
// the shared error examples, and the few rules applied to every operation after Nest scanned them.
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerCustomOptions, SwaggerModule } from '@nestjs/swagger';
import { ERROR_HEADERS, errorExamples } from '../errors/error-response.dto';
import { API_KEY_SCHEME, BEARER_SCHEME } from '../http/api-auth.decorator';
import { ID_SCHEMA } from '../http/id.pipe';
import { pathOperationOf } from './api-path-operations.decorator';
import { OPERATION_DESCRIPTIONS, pathIdDoc } from './operation-docs';

/** One tag per feature, in the order an operator meets them. */
export const OPENAPI_TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'health', description: 'Liveness and readiness probes. No credentials.' },
  {
    name: 'users',
    description: 'Users and their API keys (`srk_…`, shown once): admins create users, a user manages their own keys.',
  },
  {
    name: 'groups',
    description:
      'Groups are namespaces (`a`, `a/b`, `a/b/c`) with the roles Owner, Maintainer, Developer and Reporter; a role in a parent holds in its children.',
  },
  {
    name: 'skills',
    description:
      'Skill packages (a .zip with a SKILL.md): publish, add versions, validate, read, download, delete. Personal (namespace `default`), group, or public (admins).',
  },
  {
    name: 'discovery',
    description:
      'Find skills by the words of a question, and read single files of a version remotely (an agent activates a skill by reading its SKILL.md).',
  },
  { name: 'ghosts', description: 'Agent personas and the skills they select: names, refs, preloads.' },
  { name: 'bots', description: 'A bot runs one ghost.' },
  { name: 'teams', description: 'An ordered list of 1-20 bots; tasks run on a team.' },
  {
    name: 'subscriptions',
    description: 'Scheduled jobs: a team and explicit skill selections. Running one creates a task.',
  },
  {
    name: 'tasks',
    description: 'Tasks on a team with their labels and selections, and task tokens (`srt_…`) for sandboxes.',
  },
  {
    name: 'resolution',
    description:
      "The one resolver: a task's skills as exact refs (the ETag is their fingerprint), ExecutionRequests for executors, and VeADK's remote-skills.json.",
  },
  {
    name: 'skill-bindings',
    description:
      "Automatic skills: a user's or a group's bindings, the lowest source of every task's skills (the creator's own, then the team group's and its ancestors'). See docs/resolution.md#skill-bindings.",
  },
  {
    name: 'tool-policy',
    description:
      "What a task's active skills allow: the intersection of their `allowed-tools`, what they require, and whether one call passes.",
  },
  {
    name: 'wegent',
    description: 'The paths existing Wegent executors and sandbox managers call (`/api/v1/…`), with a task token.',
  },
  {
    name: 'mcp',
    description:
      'The Model Context Protocol endpoint (Streamable HTTP, stateless) with the tools find_skills, get_task_skills, get_skill_manifest, read_skill_file and check_tools.',
  },
  {
    name: 'audit',
    description: 'Who changed what and when, newest first: admins see all, group Owners their namespaces.',
  },
  { name: 'metrics', description: 'Prometheus metrics, for admins or the `METRICS_TOKEN`.' },
  {
    name: 'storage',
    description: 'The package store: the garbage sweep of what no version refers to (admins). See docs/storage.md.',
  },
];

const DESCRIPTION = [
  'Skill packages, the places that select them, and the one resolver that turns selections into exact refs.',
  '',
  '**Authorize** with an API key (`srk_…`) or a task token (`srt_…`) in either scheme: `X-API-Key: <key>` or',
  '`Authorization: Bearer <key>`. The first admin key is `ADMIN_API_KEY` (or the file named in the boot log).',
  'A task token may make only the calls of its task; any other call answers 404.',
  '',
  'Every error has one shape, `{statusCode, error, message, code, details?, requestId}`, with the request id',
  'also in `X-Request-Id`; each operation lists its error codes and an example of each.',
].join('\n');

/** Swagger UI as operators use it: keys kept across reloads, operation ids shown, forms open. */
export const SWAGGER_UI_OPTIONS: SwaggerCustomOptions['swaggerOptions'] = {
  persistAuthorization: true,
  displayOperationId: true,
  tryItOutEnabled: true,
  displayRequestDuration: true,
  filter: true,
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
};

/** The served document: what Nest reads from the controllers, finished by the rules below. */
export function createOpenApiDocument(app: INestApplication, prefix: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('skill-resolver')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'An API key (`srk_…`) or a task token (`srt_…`)',
      },
      API_KEY_SCHEME,
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'srk_… / srt_… (opaque)',
        description: 'The same key or token as `Authorization: Bearer <key>`',
      },
      BEARER_SCHEME,
    );
  for (const tag of OPENAPI_TAGS) builder.addTag(tag.name, tag.description);
  const document = SwaggerModule.createDocument(app, builder.build(), { autoTagControllers: false });
  return finishOpenApiDocument(document, prefix);
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ in: string; name: string; schema?: unknown; description?: string; example?: unknown }>;
}

/** `limit` says its own bounds: `Items per page, 1-100 (default 20)`. */
function pageSizeDescription(schema: unknown): string {
  const {
    minimum,
    maximum,
    default: fallback,
  } = (schema ?? {}) as { minimum?: number; maximum?: number; default?: number };
  const range = minimum !== undefined && maximum !== undefined ? `, ${minimum}-${maximum}` : '';
  return `Items per page${range}${fallback !== undefined ? ` (default ${fallback})` : ''}`;
}

/**
 * Rules every operation follows, applied once here rather than on every handler:
 * - each path of a multi-path handler becomes its own operation (`ApiPathOperations`);
 * - a path parameter named `id` or `…Id` is a positive 32-bit integer: `IdPipe` answers 404 to
 *   anything else, and Nest would only say `number`;
 * - the error examples and headers the operations refer to are defined once.
 */
export function finishOpenApiDocument(document: OpenAPIObject, prefix: string): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      const numbered = /^(.+)\[\d+\]$/.exec(op.operationId ?? '');
      if (numbered) {
        const own = pathOperationOf(numbered[1], path, prefix);
        if (!own) throw new Error(`${op.operationId} serves ${path}, which no @ApiPathOperations entry describes`);
        op.operationId = own.operationId;
        op.summary = own.summary;
        op.tags = [own.tag];
        if (own.description) op.description = own.description;
      }
      if (!op.description && op.operationId && OPERATION_DESCRIPTIONS[op.operationId]) {
        op.description = OPERATION_DESCRIPTIONS[op.operationId];
      }
      for (const param of op.parameters ?? []) {
        if (param.in === 'path' && /^(id|\w+Id)$/.test(param.name)) {
          param.schema = { ...ID_SCHEMA };
          const doc = pathIdDoc(path, prefix, param.name);
          if (doc) {
            param.description ??= doc.description;
            param.example ??= doc.example;
          }
        }
        if (param.in === 'query' && param.name === 'limit' && !param.description) {
          param.description = pageSizeDescription(param.schema);
        }
      }
    }
  }
  document.components = {
    ...document.components,
    examples: { ...document.components?.examples, ...errorExamples() },
    headers: { ...document.components?.headers, ...ERROR_HEADERS },
  };
  return document;
}
