// DNS-rebinding protection of the MCP endpoint, over raw HTTP with the Host and Origin headers a
// browser would send: loopback hosts and origins pass on any port, a foreign Host or Origin is 403
// FORBIDDEN in the one error shape before authentication and before MCP, and the configuration
// adds hosts and origins. The SDK's own client (which sends no Origin) passes as every other test shows.
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listen, rawRequest } from '../support/raw-http';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

const MCP_ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A request with no Host header at all: only HTTP/1.0 may leave it out (Node refuses it on 1.1). */
function http10WithoutHost(port: number, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, body] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    });
    socket.write(
      [
        'POST /api/mcp HTTP/1.0',
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        `Accept: ${MCP_ACCEPT}`,
        `Content-Length: ${Buffer.byteLength(INITIALIZE)}`,
        '',
        INITIALIZE,
      ].join('\r\n'),
    );
  });
}

describe('MCP endpoint: Host and Origin (DNS-rebinding protection)', () => {
  let t: TestApp;
  let port: number;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    port = await listen(t);
    alice = await createUser(t, 'alice');
  });
  afterAll(() => t.close());

  function post(headers: Record<string, string>, method = 'POST') {
    return rawRequest(port, {
      method,
      path: '/api/mcp',
      headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
      body: method === 'POST' ? INITIALIZE : undefined,
    });
  }

  function expectRefused(res: Awaited<ReturnType<typeof post>>, header: 'Host' | 'Origin', message: string): void {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message,
      code: 'FORBIDDEN',
      details: { header },
      requestId: res.headers['x-request-id'],
    });
  }

  it.each([
    'localhost',
    'localhost:3000',
    '127.0.0.1',
    '127.0.0.1:1',
    'LocalHost:8080',
    '[::1]',
    '[::1]:3000',
    'localhost.',
  ])('answers a loopback Host on any port: %s', async (host) => {
    const res = await post({ ...as(alice.key), host });
    expect(res.status).toBe(200);
    expect(res.body.result.serverInfo).toEqual({ name: 'skill-resolver', version: '1' });
  });

  /** The failed authentications counted so far (a refused Host never reaches authentication). */
  async function authFailures(): Promise<string> {
    const metrics = await t.http.get('/api/metrics').set(as(ADMIN_KEY));
    return metrics.text
      .split('\n')
      .filter((line) => line.includes('auth_failures_total{'))
      .join('\n');
  }

  it('refuses a foreign Host 403 before authentication, for every method of the route', async () => {
    const failures = await authFailures();
    const message =
      'The host "evil.example.com" is not allowed here: only loopback hosts and those named in MCP_ALLOWED_HOSTS are';
    for (const headers of [as(alice.key), as('srk_wrong-key'), {}]) {
      expectRefused(await post({ ...headers, host: 'evil.example.com' }), 'Host', message);
      expectRefused(await post({ ...headers, host: 'evil.example.com:3000' }), 'Host', message);
    }
    for (const method of ['GET', 'DELETE']) {
      expectRefused(await post({ ...as(alice.key), host: 'evil.example.com' }, method), 'Host', message);
    }
    // The wrong key above was never looked at.
    expect(await authFailures()).toBe(failures);
  });

  it.each([
    ['an address that only resolves to loopback elsewhere', '127.0.0.2', '"127.0.0.2" is not allowed'],
    ['a name under localhost', 'app.localhost', '"app.localhost" is not allowed'],
    ['user information', 'evil@localhost', '"evil@localhost" is not a host name or address'],
    ['a path', 'localhost/x', '"localhost/x" is not a host name or address'],
    ['an IPv6 address without brackets', '::1', '"::1" is not a host name or address'],
  ])('refuses a Host with %s', async (_case, host, part) => {
    const res = await post({ ...as(alice.key), host });
    expect({ status: res.status, header: res.body.details?.header }).toEqual({ status: 403, header: 'Host' });
    expect(res.body.message).toContain(part);
  });

  it('refuses a request with no Host header (HTTP/1.0)', async () => {
    const res = await http10WithoutHost(port, alice.key);
    expect({ status: res.status, code: res.body.code, details: res.body.details }).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      details: { header: 'Host' },
    });
    expect(res.body.message).toBe('The request has no Host header: send the host name this service is reached at');
  });

  it('answers a loopback Origin by default, any port, as the conformance suite expects', async () => {
    // dns-rebinding-protection/localhost-host-valid-accepted: Host and Origin both on localhost.
    for (const [host, origin] of [
      [`localhost:${port}`, `http://localhost:${port}`],
      [`127.0.0.1:${port}`, 'http://localhost:6274'],
      [`[::1]:${port}`, `https://[::1]:${port}`],
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}`],
    ]) {
      const res = await post({ ...as(alice.key), host, origin });
      expect({ host, origin, status: res.status }).toEqual({ host, origin, status: 200 });
      expect(res.body.result.serverInfo.name).toBe('skill-resolver');
    }
  });

  it('refuses every other Origin by default, look-alikes of loopback included; answers a request without one', async () => {
    for (const origin of [
      'https://evil.example.com',
      'http://localhost.evil.com',
      'http://127.0.0.1.nip.io',
      'http://[::1].evil',
      `http://evil.example.com@localhost:${port}`,
      `ws://localhost:${port}`,
      'null',
      'not an origin',
    ]) {
      const res = await post({ ...as(alice.key), host: `127.0.0.1:${port}`, origin });
      expect({ origin, status: res.status, header: res.body.details?.header }).toEqual({
        origin,
        status: 403,
        header: 'Origin',
      });
      expect(res.body.message).toMatch(
        /^The origin ".*" is not allowed here: only loopback origins and those named in MCP_ALLOWED_ORIGINS are$/,
      );
    }
    expect((await post({ ...as(alice.key), host: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it('leaves the other routes alone', async () => {
    const res = await rawRequest(port, {
      path: '/api/users/me',
      headers: { ...as(alice.key), host: 'evil.example.com', origin: 'https://evil.example.com' },
    });
    expect(res.status).toBe(200);
  });

  it("passes the SDK's own client, which sends the Host it connects to and no Origin", async () => {
    const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://localhost:${port}/api/mcp`), {
        requestInit: { headers: as(alice.key) },
      }),
    );
    try {
      expect((await client.listTools()).tools.length).toBe(5);
    } finally {
      await client.close();
    }
  });

  describe('with MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS', () => {
    let configured: TestApp;
    let configuredPort: number;
    let bob: TestUser;

    beforeAll(async () => {
      configured = await startTestApp({
        MCP_ALLOWED_HOSTS: 'skills.example.com, Skill-Resolver',
        MCP_ALLOWED_ORIGINS: 'https://app.example.com,http://localhost:6274/',
      });
      configuredPort = await listen(configured);
      bob = await createUser(configured, 'bob');
    });
    afterAll(() => configured.close());

    const postTo = (headers: Record<string, string>) =>
      rawRequest(configuredPort, {
        method: 'POST',
        path: '/api/mcp',
        headers: { ...as(bob.key), 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
        body: INITIALIZE,
      });

    it.each([
      [{ host: 'skills.example.com' }],
      [{ host: 'skills.example.com:443' }],
      [{ host: 'skill-resolver:3000' }],
      [{ host: 'localhost' }],
      [{ host: 'skills.example.com', origin: 'https://app.example.com' }],
      [{ host: 'skills.example.com', origin: 'https://APP.example.com:443' }],
      [{ host: 'localhost:3000', origin: 'http://localhost:6274' }],
    ])('answers %j', async (headers) => {
      expect((await postTo(headers)).status).toBe(200);
    });

    it.each([
      [{ host: 'evil.example.com' }, 'Host'],
      [{ host: 'app.example.com' }, 'Host'],
      [{ host: 'skills.example.com', origin: 'http://app.example.com' }, 'Origin'],
      [{ host: 'skills.example.com', origin: 'https://app.example.com:8443' }, 'Origin'],
      [{ host: 'skills.example.com', origin: 'https://evil.example.com' }, 'Origin'],
    ])('refuses %j (the %s)', async (headers, header) => {
      const res = await postTo(headers);
      expect({ status: res.status, code: res.body.code, header: res.body.details?.header }).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        header,
      });
    });
  });
});
