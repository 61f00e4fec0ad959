// A handler that serves several paths (`@Get([a, b])`) is one Nest route but several OpenAPI
// operations; Nest would name them `Controller_method[0]`, `[1]` under the same tags. This decorator
// says what each path is; `finishOpenApiDocument` applies it.

/** One path of a multi-path handler, as the document shows it. */
export interface PathOperation {
  /** The route as written in `@Get(...)`, without the global prefix: `v1/tasks/:id/skills`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  description?: string;
}

const PATH_OPERATIONS = new Map<string, readonly PathOperation[]>();

/** Describes each path of a multi-path handler as its own operation (its id, summary and tag). */
export function ApiPathOperations(...operations: PathOperation[]): MethodDecorator {
  return (target, key) => {
    PATH_OPERATIONS.set(`${target.constructor.name}_${String(key)}`, operations);
  };
}

/** The operation described for `path` (OpenAPI spelling, `/api/v1/tasks/{id}/skills`) of a handler. */
export function pathOperationOf(handlerKey: string, path: string, prefix: string): PathOperation | undefined {
  return PATH_OPERATIONS.get(handlerKey)?.find((op) => path === `/${prefix}/${op.path.replace(/:(\w+)/g, '{$1}')}`);
}
