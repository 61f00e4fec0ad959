// `node dist/scripts/hostile-probe.js <probe> [port]` against a running service (CONTRACT §11), as a
// separate process, the way the hostile review measured it. ADMIN_API_KEY names a valid key.
//   ghost      POST /api/ghosts with 100,000 distinct skills (889 KB), /api/health/live probed every 50 ms
//   labels     POST /api/tasks with 75,000 label keys, probed the same way
//   upload     a multipart upload at 1 KB/s: time until the service answers and closes
//   idle       1,001 connections that send nothing: when they close, which are refused
//   keepalive  1,001 connections that make one request and stay idle
//   auth       2,000 wrong keys in a row from one address: where 429 starts, then a valid key
import { request } from 'node:http';
import { connect } from 'node:net';

const [probe = '', portArg = '3000'] = process.argv.slice(2);
const port = Number(portArg);
const key = process.env.ADMIN_API_KEY ?? '';

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
  localAddress?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false, localAddress }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function whileProbing(method: string, path: string, body: Buffer): Promise<object> {
  let maxMs = 0;
  let probes = 0;
  let stop = false;
  const probing = (async () => {
    while (!stop) {
      const started = now();
      await send('GET', '/api/health/live', {}).catch(() => undefined);
      maxMs = Math.max(maxMs, now() - started);
      probes++;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  await new Promise((r) => setTimeout(r, 300));
  const started = now();
  const res = await send(
    method,
    path,
    { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(body.length) },
    body,
  );
  const answerMs = now() - started;
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await probing;
  return {
    bytes: body.length,
    status: res.status,
    answer_ms: Math.round(answerMs),
    max_probe_ms: Math.round(maxMs),
    probes,
    message: res.text.slice(0, 160),
  };
}

function slowUpload(): Promise<object> {
  return new Promise((resolve) => {
    const boundary = 'probeboundary';
    const socket = connect(port, '127.0.0.1');
    const started = now();
    let received = '';
    let sent = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    const drip = setInterval(() => {
      if (socket.writable) {
        socket.write(Buffer.alloc(1024, 0x41));
        sent += 1024;
      }
    }, 1000);
    socket.on('close', () => {
      clearInterval(drip);
      resolve({
        closed_after_ms: Math.round(now() - started),
        bytes_sent: sent,
        answer: received.split('\r\n\r\n')[1],
      });
    });
    socket.write(
      `POST /api/skills HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 10000000\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n` +
        `Content-Type: application/zip\r\n\r\n`,
    );
  });
}

async function connections(count: number, requestFirst: boolean): Promise<object> {
  const started = now();
  const closes: Array<{ afterMs: number; status: string; answered: boolean }> = [];
  const done: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    await new Promise<void>((opened) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('error', () => undefined);
      done.push(
        new Promise((closed) =>
          socket.on('close', () => {
            closes.push({ afterMs: now() - started, status: received.slice(9, 12) || '-', answered: received !== '' });
            opened();
            closed();
          }),
        ),
      );
      socket.on('connect', () => {
        if (requestFirst) socket.write('GET /api/health/live HTTP/1.1\r\nHost: x\r\n\r\n');
        opened();
      });
    });
  }
  const openedMs = now() - started;
  await Promise.all(done);
  const answered = closes.filter((c) => c.answered).map((c) => c.afterMs);
  const statuses: Record<string, number> = {};
  for (const c of closes) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
  return {
    connections: count,
    opened_in_ms: Math.round(openedMs),
    statuses,
    first_closed_ms: Math.round(Math.min(...answered)),
    last_closed_ms: Math.round(Math.max(...answered)),
    closed_on_arrival: closes.filter((c) => !c.answered).length,
  };
}

async function authFlood(): Promise<object> {
  const from = '127.0.0.9';
  const statuses: Record<number, number> = {};
  let first429: number | null = null;
  for (let i = 1; i <= 2_000; i++) {
    const res = await send('GET', '/api/users/me', { 'x-api-key': `srk_wrong-${i}` }, undefined, from);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status === 429 && first429 === null) first429 = i;
  }
  const valid = await send('GET', '/api/users/me', { 'x-api-key': key }, undefined, from);
  const other = await send('GET', '/api/users/me', { 'x-api-key': key }, undefined, '127.0.0.10');
  return {
    statuses,
    first_429_at_request: first429,
    valid_key_same_address: { status: valid.status, retry_after: valid.headers['retry-after'] },
    valid_key_other_address: other.status,
  };
}

async function main(): Promise<object> {
  switch (probe) {
    case 'ghost':
      return whileProbing(
        'POST',
        '/api/ghosts',
        Buffer.from(JSON.stringify({ name: 'g', skills: Array.from({ length: 100_000 }, (_, i) => `s${i}`) })),
      );
    case 'labels': {
      const labels = Object.fromEntries(Array.from({ length: 75_000 }, (_, i) => [`k${i}`, 'v']));
      return whileProbing('POST', '/api/tasks', Buffer.from(JSON.stringify({ team_id: 1, labels })));
    }
    case 'upload':
      return slowUpload();
    case 'idle':
      return connections(1_001, false);
    case 'keepalive':
      return connections(1_001, true);
    case 'auth':
      return authFlood();
    default:
      throw new Error('probe: ghost, labels, upload, idle, keepalive or auth');
  }
}

main()
  .then((result) => {
    process.stdout.write(`${JSON.stringify({ probe, ...result })}\n`);
    process.exit(0);
  })
  .catch((err: unknown) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
