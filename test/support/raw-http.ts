// The app on a real loopback port, and requests made byte for byte (raw bodies, a chosen source
// address, slow uploads, idle connections): what supertest cannot send.
import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { TestApp } from './test-app';

/** Listens on 127.0.0.1 (once) and returns the port; `t.close()` stops it. */
export async function listen(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer();
  if (!server.listening) await t.app.listen(0, '127.0.0.1');
  return (server.address() as AddressInfo).port;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined. */
  body: any;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** The source address, e.g. `127.0.0.2` (any 127/8 address is loopback on Linux). */
  localAddress?: string;
}

export function rawRequest(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: req.method ?? 'GET',
        path: req.path,
        localAddress: req.localAddress,
        agent: false,
        headers: { ...(body ? { 'content-length': String(body.length) } : {}), ...req.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export interface EventLoopProbe {
  /** Stops probing and returns the longest wait of any probe, in milliseconds. */
  stop(): Promise<{ maxMs: number; probes: number }>;
}

/**
 * Asks `/api/health/live` every `everyMs` on a fresh connection and records how long each answer
 * took: a request that blocks the event loop delays every probe meanwhile.
 */
export function probeEventLoop(port: number, everyMs = 50): EventLoopProbe {
  let maxMs = 0;
  let probes = 0;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const started = process.hrtime.bigint();
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/health/live', agent: false }, (res) => {
        res.resume();
        res.on('end', () => {
          maxMs = Math.max(maxMs, Number(process.hrtime.bigint() - started) / 1e6);
          probes++;
          resolve();
        });
      });
      req.on('error', () => resolve());
      req.end();
    });
  const loop = async (): Promise<void> => {
    while (!stopped) {
      inFlight = once();
      await inFlight;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  const running = loop();
  return {
    async stop() {
      stopped = true;
      await running;
      return { maxMs, probes };
    },
  };
}
