// The calls the client makes, over Node's own HTTP with keep-alive: the task's skills and the
// package downloads (and a publish's lookup and upload), each bounded in size and in time, retried when the service answers "try
// again" (retry.ts), a download's redirect followed once without the credentials (redirect.ts).
// Counts requests, retries and package bytes; its errors never hold the token.
import { Agent as HttpAgent, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { checkInterval, describeRule, RateWindow, SlowDownloadRule } from './deadline';
import { ClientError, EXIT_FAILED, errnoCode, errorMessage, UsageError } from './errors';
import { FOLLOWED_REDIRECTS, redirectTarget } from './redirect';
import { CONNECTION_LOST, describeGiveUp, RETRYABLE_STATUSES, retryDecision } from './retry';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The origin that answered: the service's, or the store's a download was redirected to. */
  origin: string;
  /** The answer came from where the service redirected the request. */
  redirected: boolean;
  /** A 503 or 429 that was not retried (again): why, to end the message with; '' otherwise. */
  gaveUp: string;
}

/** A request body and its media type. */
export interface Payload {
  body: Buffer;
  contentType: string;
}

/** One retry about to be made, for the progress line. */
export interface RetryNotice {
  /** `the service`, or `the store at <origin>` for the answer of a redirected download. */
  by: string;
  status: number;
  /** ` (CODE: message)` of the answer, or ''. */
  detail: string;
  waitMs: number;
  /** 1 for the first retry of this request. */
  attempt: number;
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
  /** A package download: a 302, 303 or 307 is followed once. Elsewhere a redirect ends the request. */
  followRedirect?: boolean;
  /** Called before each retry. */
  onRetry?: (notice: RetryNotice) => void;
}

/** What bounds every request of one run: the run's signal, its time left, and the slow-download rule. */
export interface RequestBounds {
  signal: AbortSignal;
  /** The error a request ends with once `signal` fired. */
  aborted: () => Error;
  slow: SlowDownloadRule;
  /** Milliseconds left before the run's deadline. */
  remainingMs: () => number;
  /** Waits `ms`, or ends with the run's error when its signal fires first. */
  sleep: (ms: number) => Promise<void>;
  /** [0, 1), the retries' jitter (Math.random unless given). */
  random?: () => number;
}

/** Node's own default, stated: a head larger than this ends the request. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Of an answer other than 200 only this much is read (the service's error bodies are a few hundred bytes). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
const USER_AGENT = `skill-resolver-client/1 node/${process.versions.node}`;
/** Every request's headers but the credentials: all a redirected download is sent. */
const PLAIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'user-agent': USER_AGENT,
  accept: 'application/json, application/zip',
});

/**
 * The service root and the path prefix of its API: `https://host` and `https://host/api` both
 * give `/api`; a service behind a path (`https://host/skills`) gives `/skills/api`.
 */
export function serviceRoot(raw: string): { url: string; apiPrefix: string; origin: string; protocol: string } {
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
  return { url: `${url.origin}${root}`, apiPrefix: `${root}/api`, origin: url.origin, protocol: url.protocol };
}

const firstHeader = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

export class ServiceClient {
  requests = 0;
  /** Requests sent again after a 503 or 429. */
  retries = 0;
  /** Package bytes received (download bodies). */
  bytesDownloaded = 0;
  readonly root: ReturnType<typeof serviceRoot>;
  /** One keep-alive agent per protocol: the service's, and a store's that a redirect leads to. */
  private readonly agents = new Map<string, HttpAgent>();

  constructor(
    url: string,
    private readonly token: string,
    private readonly sockets: number,
    private readonly bounds: RequestBounds,
  ) {
    this.root = serviceRoot(url);
    this.agentFor(this.root.protocol);
  }

  /**
   * `path` below the API prefix, e.g. `/tasks/12/skills`, sent again while the answer is 503 or
   * 429 and retry.ts allows. Ends with an error when the run's signal fires, when the answer
   * arrives slower than the slow-download rule allows (the head included: a server that holds
   * everything back is cut after one window), when it is larger than its bound, or on a redirect
   * that may not be followed.
   */
  get(path: string, options: GetOptions): Promise<HttpAnswer> {
    return this.request(path, options);
  }

  /**
   * A POST of `payload` to `path`, retried as a GET is: only for calls that may be sent again (a
   * publish is: the same files are no new version). Never follows a redirect.
   */
  post(path: string, payload: Payload, options: Omit<GetOptions, 'followRedirect'>): Promise<HttpAnswer> {
    return this.request(path, options, payload);
  }

  private async request(path: string, options: GetOptions, payload?: Payload): Promise<HttpAnswer> {
    const target = new URL(`${this.root.apiPrefix}${path}`, this.root.origin);
    const random = this.bounds.random ?? Math.random;
    for (let attempt = 0; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await this.follow(target, options, payload);
      } catch (err) {
        if (!(err instanceof ConnectionLost) || err.afterData) throw err;
        const decision = retryDecision({
          status: CONNECTION_LOST,
          attempt,
          retryAfter: undefined,
          remainingMs: this.bounds.remainingMs(),
          now: Date.now(),
          random: random(),
        });
        if (!decision.retry)
          throw new ClientError(EXIT_FAILED, `${err.message}${describeGiveUp(decision.why, attempt)}`);
        this.retries++;
        options.onRetry?.({
          by: err.by,
          status: CONNECTION_LOST,
          detail: ` (${err.code})`,
          waitMs: decision.waitMs,
          attempt: attempt + 1,
        });
        await this.bounds.sleep(decision.waitMs);
        continue;
      }
      if (!RETRYABLE_STATUSES.has(answer.status)) return answer;
      const decision = retryDecision({
        status: answer.status,
        attempt,
        retryAfter: firstHeader(answer.headers['retry-after']),
        remainingMs: this.bounds.remainingMs(),
        now: Date.now(),
        random: random(),
      });
      if (!decision.retry) return { ...answer, gaveUp: describeGiveUp(decision.why, attempt) };
      this.retries++;
      options.onRetry?.({
        by: answer.redirected ? `the store at ${answer.origin}` : 'the service',
        status: answer.status,
        detail: serviceError(answer),
        waitMs: decision.waitMs,
        attempt: attempt + 1,
      });
      await this.bounds.sleep(decision.waitMs);
    }
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
  }

  /** One request to the service, and for a download the one redirect it may answer. */
  private async follow(target: URL, options: GetOptions, payload?: Payload): Promise<HttpAnswer> {
    const headers = { ...PLAIN_HEADERS, authorization: `Bearer ${this.token}`, ...options.headers };
    const first = await this.send(target, headers, options, false, payload);
    if (!FOLLOWED_REDIRECTS.has(first.status)) return first;
    if (!options.followRedirect) {
      throw new ClientError(
        EXIT_FAILED,
        `${options.what}: the service answered ${first.status}, a redirect, which the client follows only for a package download`,
      );
    }
    const next = redirectTarget(this.root.protocol, target, firstHeader(first.headers.location));
    if (!next.ok) {
      throw new ClientError(
        EXIT_FAILED,
        `${options.what}: the service's redirect (${first.status}) is refused: ${next.why}`,
      );
    }
    // The store is sent nothing that carried the credentials: no Authorization, no cookie, no key.
    const second = await this.send(next.url, { ...PLAIN_HEADERS }, options, true);
    if (second.status >= 300 && second.status < 400) {
      throw new ClientError(
        EXIT_FAILED,
        `${options.what}: the store at ${second.origin} answered ${second.status}, a second redirect, which is not followed`,
      );
    }
    return second;
  }

  private agentFor(protocol: string): { agent: HttpAgent; request: typeof httpRequest } {
    // TLS is loaded only for an https service or store, so a plain-HTTP sandbox does not pay for it at start.
    const https = protocol === 'https:' ? process.getBuiltinModule('node:https') : null;
    let agent = this.agents.get(protocol);
    if (!agent) {
      const settings = { keepAlive: true, maxSockets: this.sockets };
      agent = https ? new https.Agent(settings) : new HttpAgent(settings);
      this.agents.set(protocol, agent);
    }
    return { agent, request: https ? https.request : httpRequest };
  }

  private send(
    target: URL,
    headers: Record<string, string>,
    options: GetOptions,
    redirected: boolean,
    payload?: Payload,
  ): Promise<HttpAnswer> {
    const { signal, slow } = this.bounds;
    if (signal.aborted) return Promise.reject(this.bounds.aborted());
    this.requests++;
    const { agent, request } = this.agentFor(target.protocol);
    const origin = target.origin;
    const place = redirected ? 'store' : 'service';
    return new Promise<HttpAnswer>((resolve, reject) => {
      let settled = false;
      const rate = new RateWindow(slow, Date.now());
      const onAbort = (): void => fail(this.bounds.aborted());
      const watch = setInterval(() => {
        if (!rate.tooSlow(Date.now())) return;
        fail(
          new ClientError(
            EXIT_FAILED,
            `${options.what} came slower than ${describeRule(slow)} (${rate.lastWindowBytes()} bytes in the last window) from ${origin}; cut off`,
          ),
        );
      }, checkInterval(slow));
      /** Part of a 200's body was handed to `onChunk`: a retry would hand it over twice. */
      let delivered = false;
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
      const sent = payload
        ? { ...headers, 'content-type': payload.contentType, 'content-length': String(payload.body.length) }
        : headers;
      const method = payload ? 'POST' : 'GET';
      const req = request(target, { method, agent, maxHeaderSize: MAX_HEADER_BYTES, headers: sent }, (res) => {
        const status = res.statusCode ?? 0;
        const ok = status === 200;
        const declared = Number(res.headers['content-length']);
        if (ok && Number.isFinite(declared) && declared > options.maxBytes) return fail(options.tooLarge());
        const cap = ok ? options.maxBytes : Math.min(options.maxBytes, MAX_ERROR_BODY_BYTES);
        const chunks: Buffer[] = [];
        let received = 0;
        const answer = (): HttpAnswer => ({
          status,
          headers: res.headers,
          body: Buffer.concat(chunks, received),
          origin,
          redirected,
          gaveUp: '',
        });
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
          if (ok && options.onChunk) {
            delivered = true;
            options.onChunk(chunk);
          }
        });
        res.on('error', (err) => fail(networkError(err, place, origin, delivered)));
        res.on('aborted', () => fail(new ClientError(EXIT_FAILED, `The ${place} at ${origin} cut the answer short`)));
        res.on('end', () => {
          if (settle()) resolve(answer());
        });
      });
      req.on('error', (err) => fail(networkError(err, place, origin, delivered)));
      req.end(payload?.body);
    });
  }
}

/** Codes of a connection that failed without the other side having done anything a retry would repeat. */
const LOST_CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED']);

/** A connection refused or reset; `afterData` once part of a 200's body was handed on (never retried). */
class ConnectionLost extends ClientError {
  constructor(
    message: string,
    readonly code: string,
    readonly by: string,
    readonly afterData: boolean,
  ) {
    super(EXIT_FAILED, message);
  }
}

function networkError(err: unknown, place: string, origin: string, afterData = false): ClientError {
  const code = errnoCode(err);
  if (code && LOST_CONNECTION_CODES.has(code)) {
    const by = place === 'store' ? `the store at ${origin}` : 'the service';
    return new ConnectionLost(`Cannot reach the ${place} at ${origin}: ${code}`, code, by, afterData);
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ClientError(
      EXIT_FAILED,
      `The ${place} at ${origin} sent a head larger than ${MAX_HEADER_BYTES / 1024} KiB`,
    );
  }
  return new ClientError(EXIT_FAILED, `Cannot reach the ${place} at ${origin}: ${code ?? errorMessage(err)}`);
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
