// Running the built sandbox client as a sandbox does (a child process), in front of the real app
// on a real port through a small proxy that counts requests and misbehaves on demand: it holds
// requests, flips a byte, trickles, stalls or resets an answer midway, never answers at all, or
// answers itself (a 503, a redirect). A stub server stands for what is not the app: a store a
// download is redirected to, or a hostile service.
import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const CLI = join(__dirname, '..', '..', 'dist', 'src', 'client', 'cli.js');

export interface ProxyRecord {
  method: string;
  path: string;
  status: number;
  bytes: number;
}

/** An answer made up by a test: a status, headers and a body. */
export interface StubAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

function sendStub(res: ServerResponse, answer: StubAnswer): void {
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : (answer.body ?? Buffer.alloc(0));
  res.writeHead(answer.status, { 'content-length': String(body.length), ...answer.headers });
  res.end(body);
}

export interface ProxyRules {
  /** Answers matching requests itself (nothing is forwarded); null forwards them. */
  answer?: (path: string) => StubAnswer | null;
  /** Flips one byte in the middle of the body of matching responses. */
  tamper?: (path: string) => boolean;
  /** Holds matching requests this long before forwarding them. */
  delayMs?: (path: string) => number;
  /** Sends the head and half the body of matching responses, then nothing more. */
  stall?: (path: string) => boolean;
  /** Sends the head, then the body one byte every `everyMs` of matching responses. */
  trickle?: (path: string) => { everyMs: number } | null;
  /** Sends the head and half the body of matching responses, then resets the connection. */
  reset?: (path: string) => boolean;
  /** Never answers matching requests (not even the head), until the client goes. */
  silent?: (path: string) => boolean;
  /** Closes the connection of matching requests at once, before any answer (a reset). */
  drop?: (path: string) => boolean;
  /** Called when a request arrives (before it is forwarded). */
  onRequest?: (path: string) => void;
}

export class Proxy {
  log: ProxyRecord[] = [];
  rules: ProxyRules = {};
  /** The most downloads in flight at once since the last reset. */
  maxDownloadsInFlight = 0;
  private downloadsInFlight = 0;
  private server: Server | undefined;
  port = 0;

  constructor(private readonly upstreamPort: number) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }

  /** Forgets the log and the rules. */
  reset(): void {
    this.log = [];
    this.rules = {};
    this.maxDownloadsInFlight = 0;
  }

  downloads(): ProxyRecord[] {
    return this.log.filter((r) => r.path.includes('/download'));
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server!.close(() => done()));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? '/';
    this.rules.onRequest?.(path);
    if (this.rules.silent?.(path)) {
      this.log.push({ method: req.method ?? 'GET', path, status: 0, bytes: 0 });
      return;
    }
    if (this.rules.drop?.(path)) {
      this.log.push({ method: req.method ?? 'GET', path, status: 0, bytes: 0 });
      req.socket.resetAndDestroy();
      return;
    }
    const made = this.rules.answer?.(path);
    if (made) {
      this.log.push({ method: req.method ?? 'GET', path, status: made.status, bytes: 0 });
      return sendStub(res, made);
    }
    if (path.includes('/download')) {
      this.maxDownloadsInFlight = Math.max(this.maxDownloadsInFlight, ++this.downloadsInFlight);
      res.once('close', () => this.downloadsInFlight--);
    }
    const delay = this.rules.delayMs?.(path) ?? 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const upstream = request(
      { host: '127.0.0.1', port: this.upstreamPort, method: req.method, path, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          this.log.push({ method: req.method ?? 'GET', path, status: answer.statusCode ?? 0, bytes: body.length });
          if (this.rules.tamper?.(path) && body.length > 0) body[body.length >> 1] ^= 0x01;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          if (this.rules.stall?.(path)) {
            res.write(body.subarray(0, body.length >> 1));
            return;
          }
          if (this.rules.reset?.(path)) {
            res.write(body.subarray(0, body.length >> 1), () => res.socket?.resetAndDestroy());
            return;
          }
          const trickle = this.rules.trickle?.(path);
          if (trickle) {
            res.flushHeaders();
            let sent = 0;
            const timer = setInterval(() => {
              if (sent >= body.length) {
                clearInterval(timer);
                res.end();
                return;
              }
              res.write(body.subarray(sent, ++sent));
            }, trickle.everyMs);
            res.once('close', () => clearInterval(timer));
            return;
          }
          res.end(body);
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}

export interface StubRecord {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** A server on loopback that answers every request with `answer(path)` and records what it was sent. */
export class StubServer {
  log: StubRecord[] = [];
  private server: Server | undefined;
  url = '';

  constructor(public answer: (path: string) => StubAnswer) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.log.push({ method: req.method ?? 'GET', path, headers: req.headers });
      sendStub(res, this.answer(path));
    });
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server!.close(() => done()));
  }
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** The environment of a sandbox: nothing from the test process but PATH and a HOME of its own. */
export function cliEnv(home: string, env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...env };
}

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function finished(child: ChildProcess): Promise<CliRun> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => err.push(c));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      resolve({ code, signal, stdout, stderr: Buffer.concat(err).toString('utf8'), json: parsed(stdout) });
    });
  });
}

function parsed(stdout: string): unknown {
  try {
    return stdout.trim() ? JSON.parse(stdout) : null;
  } catch {
    return null;
  }
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return finished(spawnCli(args, env));
}

export const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Every file under `dir` (relative paths, sorted), with its bytes' digest and mode bits. */
export function tree(dir: string, prefix = ''): Array<{ path: string; sha256: string; mode: number }> {
  const found: Array<{ path: string; sha256: string; mode: number }> = [];
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const info = statSync(join(dir, rel));
    if (info.isDirectory()) found.push(...tree(dir, rel));
    else found.push({ path: rel, sha256: sha256Hex(readFileSync(join(dir, rel))), mode: info.mode & 0o777 });
  }
  return found;
}

/** Every entry (`<scope>/<64 hex>.zip`) of a cache, and the other names found beside them. */
export function cacheEntries(cache: string): { entries: string[]; others: string[] } {
  const entries: string[] = [];
  const others: string[] = [];
  if (!existsSync(cache)) return { entries, others };
  const scopes = readdirSync(cache);
  for (const scope of scopes) {
    if (!/^[0-9a-f]{32}$/.test(scope)) {
      others.push(scope);
      continue;
    }
    for (const name of readdirSync(join(cache, scope))) {
      if (/^[0-9a-f]{64}\.zip$/.test(name)) entries.push(join(scope, name));
      else others.push(join(scope, name));
    }
  }
  return { entries: entries.sort(), others: others.sort() };
}

/** Checks a cache entry the way a sync does: a regular file whose bytes hash to its own name. */
export function entryIsSound(entry: string): boolean {
  try {
    if (!lstatSync(entry).isFile()) return false;
    return sha256Hex(readFileSync(entry)) === /([0-9a-f]{64})\.zip$/.exec(entry)?.[1];
  } catch {
    return false;
  }
}

/** What a run can leave in DIR besides the skill folders and the lock: staging folders, old copies, lock temps, the sync lock. */
export function leftovers(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^\.(partial|old)-|^\.skill-resolver\.(sync\.lock|lock\.json\.tmp-)/.test(name))
    .sort();
}

/** Runs the command and kills it after `boundMs`: a run that ended by itself has `signal: null`. */
export async function runBounded(
  args: string[],
  env: Record<string, string>,
  boundMs: number,
): Promise<CliRun & { ms: number }> {
  const start = performance.now();
  const child = spawnCli(args, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
  const run = await finished(child);
  clearTimeout(timer);
  return { ...run, ms: performance.now() - start };
}
