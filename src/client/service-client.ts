// The two calls the client makes, over Node's own HTTP with keep-alive: the task's skills and the
// package downloads. Counts requests and package bytes; its errors never hold the token.
import { Agent as HttpAgent, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type * as Https from 'node:https';
import { ClientError, EXIT_FAILED, errnoCode, errorMessage, UsageError } from './errors';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface GetOptions {
  headers?: Record<string, string>;
  /** A body longer than this ends the request with `tooLarge()`. */
  maxBytes: number;
  tooLarge: () => Error;
  onChunk?: (chunk: Buffer) => void;
}

/** A socket that sends nothing for this long ends the request. */
const IDLE_TIMEOUT_MS = 60_000;
const USER_AGENT = `skill-resolver-client/1 node/${process.versions.node}`;

/**
 * The service root and the path prefix of its API: `https://host` and `https://host/api` both
 * give `/api`; a service behind a path (`https://host/skills`) gives `/skills/api`.
 */
export function serviceRoot(raw: string): { url: string; apiPrefix: string; origin: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`The service URL ${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`The service URL must be http:// or https://, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new UsageError('The service URL must not hold credentials');
  if (url.search || url.hash) throw new UsageError('The service URL must not hold a query or a fragment');
  const path = url.pathname.replace(/\/+$/, '');
  const root = path.endsWith('/api') ? path.slice(0, -4) : path;
  return { url: `${url.origin}${root}`, apiPrefix: `${root}/api`, origin: url.origin };
}

export class ServiceClient {
  requests = 0;
  /** Package bytes received (download bodies). */
  bytesDownloaded = 0;
  readonly root: ReturnType<typeof serviceRoot>;
  private readonly agent: HttpAgent;
  private readonly https: typeof Https | null;

  constructor(
    url: string,
    private readonly token: string,
    sockets: number,
  ) {
    this.root = serviceRoot(url);
    const options = { keepAlive: true, maxSockets: sockets };
    // TLS is loaded only for an https service, so a plain-HTTP sandbox does not pay for it at start.
    this.https = this.root.origin.startsWith('https:') ? process.getBuiltinModule('node:https') : null;
    this.agent = this.https ? new this.https.Agent(options) : new HttpAgent(options);
  }

  /** `path` below the API prefix, e.g. `/tasks/12/skills`. */
  get(path: string, options: GetOptions): Promise<HttpAnswer> {
    this.requests++;
    const target = new URL(`${this.root.apiPrefix}${path}`, this.root.origin);
    const send = this.https ? this.https.request : httpRequest;
    return new Promise<HttpAnswer>((resolve, reject) => {
      let settled = false;
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        req.destroy();
        reject(err);
      };
      const req = send(
        target,
        {
          method: 'GET',
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            'user-agent': USER_AGENT,
            accept: 'application/json, application/zip',
            ...options.headers,
          },
        },
        (res) => {
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > options.maxBytes) return fail(options.tooLarge());
          const chunks: Buffer[] = [];
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > options.maxBytes) return fail(options.tooLarge());
            chunks.push(chunk);
            options.onChunk?.(chunk);
          });
          res.on('error', (err) => fail(this.networkError(err)));
          res.on('aborted', () =>
            fail(new ClientError(EXIT_FAILED, `The service at ${this.root.origin} cut the answer short`)),
          );
          res.on('end', () => {
            if (settled) return;
            settled = true;
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, received) });
          });
        },
      );
      req.setTimeout(IDLE_TIMEOUT_MS, () =>
        fail(
          new ClientError(
            EXIT_FAILED,
            `The service at ${this.root.origin} sent nothing for ${IDLE_TIMEOUT_MS / 1000} s`,
          ),
        ),
      );
      req.on('error', (err) => fail(this.networkError(err)));
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private networkError(err: unknown): ClientError {
    const code = errnoCode(err);
    return new ClientError(
      EXIT_FAILED,
      `Cannot reach the service at ${this.root.origin}: ${code ?? errorMessage(err)}`,
    );
  }
}

/** `{code, message}` of the service's error shape, when the body holds one. */
export function serviceError(answer: HttpAnswer): string {
  try {
    const body = JSON.parse(answer.body.toString('utf8')) as { code?: unknown; message?: unknown };
    const message = Array.isArray(body.message) ? body.message.join('; ') : body.message;
    const parts = [typeof body.code === 'string' ? body.code : '', typeof message === 'string' ? message : ''];
    const text = parts.filter(Boolean).join(': ');
    return text ? ` (${text.slice(0, 300)})` : '';
  } catch {
    return '';
  }
}
