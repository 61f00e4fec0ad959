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

export { probeEventLoop } from './event-loop-probe';
export type { EventLoopProbe } from './event-loop-probe';
