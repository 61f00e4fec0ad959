// The two calls the client makes, over Node's own HTTP with keep-alive: the task's skills and the
// package downloads, each bounded in size and in time. Counts requests and package bytes; its
// errors never hold the token.
import { Agent as HttpAgent, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type * as Https from 'node:https';
import { checkInterval, describeRule, RateWindow, SlowDownloadRule } from './deadline';
import { ClientError, EXIT_FAILED, errnoCode, errorMessage, UsageError } from './errors';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface GetOptions {
  headers?: Record<string, string>;
  /** A 200 body longer than this ends the request with `tooLarge()`. */
  maxBytes: number;
  tooLarge: () => Error;
  /** The bytes of a 200 body, as they arrive. */
  onChunk?: (chunk: Buffer) => void;
  /** What is being fetched, for the message of a cut ("the package of alpha"). */
  what: string;
}

/** What bounds every request of one run: the run's signal and the slow-download rule. */
export interface RequestBounds {
  signal: AbortSignal;
  /** The error a request ends with once `signal` fired. */
  aborted: () => Error;
  slow: SlowDownloadRule;
}

/** Node's own default, stated: a head larger than this ends the request. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Of an answer other than 200 only this much is read (the service's error bodies are a few hundred bytes). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
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
    private readonly bounds: RequestBounds,
  ) {
    this.root = serviceRoot(url);
    const options = { keepAlive: true, maxSockets: sockets };
    // TLS is loaded only for an https service, so a plain-HTTP sandbox does not pay for it at start.
    this.https = this.root.origin.startsWith('https:') ? process.getBuiltinModule('node:https') : null;
    this.agent = this.https ? new this.https.Agent(options) : new HttpAgent(options);
  }

  /**
   * `path` below the API prefix, e.g. `/tasks/12/skills`. Ends with an error when the run's
   * signal fires, when the answer arrives slower than the slow-download rule allows (the head
   * included: a server that holds everything back is cut after one window), or when it is larger
   * than its bound.
   */
  get(path: string, options: GetOptions): Promise<HttpAnswer> {
    const { signal, slow } = this.bounds;
    if (signal.aborted) return Promise.reject(this.bounds.aborted());
    this.requests++;
    const target = new URL(`${this.root.apiPrefix}${path}`, this.root.origin);
    const send = this.https ? this.https.request : httpRequest;
    return new Promise<HttpAnswer>((resolve, reject) => {
      let settled = false;
      const rate = new RateWindow(slow, Date.now());
      const onAbort = (): void => fail(this.bounds.aborted());
      const watch = setInterval(() => {
        if (!rate.tooSlow(Date.now())) return;
        fail(
          new ClientError(
            EXIT_FAILED,
            `${options.what} came slower than ${describeRule(slow)} (${rate.lastWindowBytes()} bytes in the last window) from ${this.root.origin}; cut off`,
          ),
        );
      }, checkInterval(slow));
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        clearInterval(watch);
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      const fail = (err: Error): void => {
        if (!settle()) return;
        req.destroy();
        reject(err);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const req = send(
        target,
        {
          method: 'GET',
          agent: this.agent,
          maxHeaderSize: MAX_HEADER_BYTES,
          headers: {
            authorization: `Bearer ${this.token}`,
            'user-agent': USER_AGENT,
            accept: 'application/json, application/zip',
            ...options.headers,
          },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const ok = status === 200;
          const declared = Number(res.headers['content-length']);
          if (ok && Number.isFinite(declared) && declared > options.maxBytes) return fail(options.tooLarge());
          const cap = ok ? options.maxBytes : Math.min(options.maxBytes, MAX_ERROR_BODY_BYTES);
          const chunks: Buffer[] = [];
          let received = 0;
          const answer = (): HttpAnswer => ({ status, headers: res.headers, body: Buffer.concat(chunks, received) });
          res.on('data', (chunk: Buffer) => {
            if (settled) return;
            rate.received(chunk.length);
            if (received + chunk.length > cap) {
              if (ok) return fail(options.tooLarge());
              // An error answer: its first bytes say enough, the rest is not read.
              chunks.push(chunk.subarray(0, cap - received));
              received = cap;
              if (settle()) resolve(answer());
              req.destroy();
              return;
            }
            received += chunk.length;
            chunks.push(chunk);
            if (ok) options.onChunk?.(chunk);
          });
          res.on('error', (err) => fail(this.networkError(err)));
          res.on('aborted', () =>
            fail(new ClientError(EXIT_FAILED, `The service at ${this.root.origin} cut the answer short`)),
          );
          res.on('end', () => {
            if (settle()) resolve(answer());
          });
        },
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
    if (code === 'HPE_HEADER_OVERFLOW') {
      return new ClientError(
        EXIT_FAILED,
        `The service at ${this.root.origin} sent a head larger than ${MAX_HEADER_BYTES / 1024} KiB`,
      );
    }
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
