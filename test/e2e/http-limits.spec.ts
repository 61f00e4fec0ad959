// Time and connection limits (docs/limits.md#time-limits), with short configured values on a real port: a slow
// upload is cut with 408 REQUEST_TIMEOUT and stores nothing, slow headers and idle connections
// are closed, and connections beyond the cap are closed on arrival.
import { randomBytes } from 'node:crypto';
import { connect, Socket } from 'node:net';
import { listen, rawRequest } from '../support/raw-http';
import { skillRowCounts } from '../support/skills';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

const HEADERS_MS = 600;
const REQUEST_MS = 1_500;
const KEEP_ALIVE_MS = 300;
const MAX_CONNECTIONS = 8;
/** Node checks limits on an interval (a tenth of the shortest here) and adds 1 s to keep-alive. */
const SLACK_MS = 1_000;

interface Conversation {
  socket: Socket;
  /** Everything received so far. */
  received: () => string;
  /** Resolves with the time from `opened` to close, in milliseconds. */
  closed: Promise<number>;
}

function open(port: number): Promise<Conversation> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const opened = Date.now();
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - opened)));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

function bodyOf(raw: string): any {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
}

describe('HTTP time and connection limits (docs/limits.md#time-limits)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    });
    port = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a multipart upload slower than the request limit gets 408 REQUEST_TIMEOUT and stores nothing', async () => {
    const before = await skillRowCounts(t);
    const zip = skillZip('slow-upload', { files: { 'data.bin': randomBytes(16 * 1024) } });
    const boundary = 'slowboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.zip"\r\n` +
        `Content-Type: application/zip\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, zip, tail]);
    const c = await open(port);
    c.socket.write(
      `POST /api/skills HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // 1 KB every 100 ms: the whole body (16 KB that do not compress) would take about two seconds.
    let sent = 0;
    const drip = setInterval(() => {
      if (c.socket.destroyed || sent >= body.length) return;
      c.socket.write(body.subarray(sent, sent + 1024));
      sent += 1024;
    }, 100);
    const closedAfter = await c.closed;
    clearInterval(drip);
    expect(sent).toBeLessThan(body.length);
    expect(statusOf(c.received())).toBe(408);
    expect(bodyOf(c.received())).toEqual({
      statusCode: 408,
      error: 'Request Timeout',
      message: expect.any(String),
      code: 'REQUEST_TIMEOUT',
      requestId: expect.any(String),
    });
    expect(closedAfter).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(closedAfter).toBeLessThan(REQUEST_MS + SLACK_MS);
    // The handler never ran: no skill, version or blob.
    await new Promise((r) => setTimeout(r, 200));
    expect(await skillRowCounts(t)).toEqual(before);
    // The same package sent at once is published.
    const published = await rawRequest(port, {
      method: 'POST',
      path: '/api/skills',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(published.status).toBe(201);
  });

  it('headers that do not arrive in time: 408 and the connection closed', async () => {
    const c = await open(port);
    c.socket.write('GET /api/health/live HTTP/1.1\r\nHost: x\r\n');
    const closedAfter = await c.closed;
    expect(statusOf(c.received())).toBe(408);
    expect(bodyOf(c.received()).code).toBe('REQUEST_TIMEOUT');
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(closedAfter).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('a connection that never sends a request is closed at the headers limit', async () => {
    const c = await open(port);
    const closedAfter = await c.closed;
    expect(closedAfter).toBeLessThan(HEADERS_MS + SLACK_MS);
  });

  it('an idle keep-alive connection is closed after the keep-alive limit', async () => {
    const c = await open(port);
    c.socket.write('GET /api/health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>((r) => {
      const wait = setInterval(() => {
        if (c.received().includes('{"status":"ok"}')) {
          clearInterval(wait);
          r();
        }
      }, 5);
    });
    const answered = Date.now();
    expect(c.received()).toContain(`Keep-Alive: timeout=${Math.floor(KEEP_ALIVE_MS / 1000)}`);
    await c.closed;
    const idle = Date.now() - answered;
    // Node closes idle keep-alive sockets 1 s after the advertised timeout, so clients never race it.
    expect(idle).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
    expect(idle).toBeLessThan(KEEP_ALIVE_MS + 1_000 + SLACK_MS);
    expect(statusOf(c.received())).toBe(200);
  });

  it(`connection ${MAX_CONNECTIONS + 1} is closed on arrival, and served again once one closes`, async () => {
    const held: Conversation[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await open(port));
    const extra = await open(port);
    const extraClosedAfter = await extra.closed;
    expect(extra.received()).toBe('');
    expect(extraClosedAfter).toBeLessThan(200);
    // The held ones are still open and served.
    held[0].socket.write('GET /api/health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await held[0].closed;
    expect(statusOf(held[0].received())).toBe(200);
    const again = await rawRequest(port, { path: '/api/health/live' });
    expect(again.status).toBe(200);
    for (const c of held) c.socket.destroy();
  });
});
