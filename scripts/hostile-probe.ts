// `node dist/scripts/hostile-probe.js <probe> [port]` against a running service (docs/limits.md#hostile-input), as a
// separate process, the way the hostile review measured it. ADMIN_API_KEY names a valid key.
//   ghost      POST /api/ghosts with 100,000 distinct skills (889 KB), /api/health/live probed every 50 ms
//   labels     POST /api/tasks with 75,000 label keys, probed the same way
//   frontmatter  POST /api/skills/validate, a SKILL.md with 40,000 metadata keys (96 KB), probed the same way
//   laughs     POST /api/skills/validate, a billion-laughs frontmatter (9 levels of 10 aliases)
//   aliases    POST /api/skills/validate, `b: [*a x99]` over a 100,000-item list (the review's 1.6 MB SKILL.md)
//   aliases-publish  the same package published with POST /api/skills
//   aliases-within-cap  `b: [*a x99]` over a 4,000-item list, a frontmatter under the 64 KiB cap
//   upload     a multipart upload at 1 KB/s: time until the service answers and closes
//   idle       1,001 connections that send nothing: when they close, which are refused
//   keepalive  1,001 connections that make one request and stay idle
//   auth       2,000 wrong keys in a row from one address: where 429 starts, then a valid key
//   search [n]      GET /api/skills/search with 113 x U+3316 + space + 135 x U+3315 (249 characters, 1,354
//                   after NFKC), n at once (default 1), probed the same way
//   search-mcp [n]  the same query through the MCP tool find_skills
//   search-max [n]  the costliest query the bounds let through: 7 words of 32 letters (each with 33
//                   typo variants) and 8 of 2, 254 characters
import { request } from 'node:http';
import { connect } from 'node:net';
import { buildCanonicalZip } from '../src/package/canonical-zip';

const [probe = '', portArg = '3000', countArg = '1'] = process.argv.slice(2);
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

/** The problem codes of a validation answer, or the error code of an error answer. */
function answerCodes(text: string): unknown {
  try {
    const body = JSON.parse(text) as { code?: string; errors?: Array<{ code: string }> };
    return body.errors ? body.errors.map((p) => p.code) : body.code;
  } catch {
    return undefined;
  }
}

async function whileProbing(
  method: string,
  path: string,
  body: Buffer,
  contentType = 'application/json',
  atOnce = 1,
  extraHeaders: Record<string, string> = {},
): Promise<object> {
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
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': contentType,
    'content-length': String(body.length),
    ...extraHeaders,
  };
  const answers = await Promise.all(
    Array.from({ length: atOnce }, () =>
      send(method, path, headers, body).then((r) => ({ ...r, ms: now() - started })),
    ),
  );
  const res = answers[0];
  const answerMs = Math.max(...answers.map((a) => a.ms));
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await probing;
  return {
    bytes: body.length,
    ...(atOnce > 1 ? { at_once: atOnce, statuses: answers.map((a) => a.status) } : {}),
    status: res.status,
    answer_ms: Math.round(answerMs),
    max_probe_ms: Math.round(maxMs),
    probes,
    codes: answerCodes(res.text),
    message: res.text.slice(0, 160),
  };
}

/** A package holding one SKILL.md with `frontmatter` after its name and description. */
function skillPackage(frontmatter: string): { zip: Buffer; skillMdBytes: number } {
  const text = Buffer.from(`---\nname: hostile\ndescription: A hostile frontmatter.\n${frontmatter}\n---\n`);
  return {
    zip: buildCanonicalZip('hostile', [{ path: 'SKILL.md', mode: '644', data: text }]),
    skillMdBytes: text.length,
  };
}

/** A skill package as the multipart body of an upload (personal scope), probed like the JSON bodies. */
async function uploadWhileProbing(path: string, frontmatter: string): Promise<object> {
  const { zip, skillMdBytes } = skillPackage(frontmatter);
  const boundary = 'probeboundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="hostile.zip"\r\n` +
        `Content-Type: application/zip\r\n\r\n`,
    ),
    zip,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return {
    skill_md_bytes: skillMdBytes,
    ...(await whileProbing('POST', path, body, `multipart/form-data; boundary=${boundary}`)),
  };
}

/** `b: [*a x99]` over an `items`-item list. */
function aliasedList(items: number): string {
  const list = Array.from({ length: items }, (_, i) => `item-${String(i).padStart(8, '0')}`).join(', ');
  return `a: &a [${list}]\nb: [${Array(99).fill('*a').join(', ')}]`;
}

const FRONTMATTERS = {
  frontmatter: (): string => `metadata:\n${Array.from({ length: 40_000 }, (_, i) => `  k${i}: v`).join('\n')}`,
  laughs: (): string =>
    [
      `a: &a [${Array(10).fill('lol').join(', ')}]`,
      ...'bcdefghi'.split('').map((n, i) => `${n}: &${n} [${Array(10).fill(`*${'abcdefghi'[i]}`).join(', ')}]`),
    ].join('\n'),
  aliases: (): string => aliasedList(100_000),
  'aliases-within-cap': (): string => aliasedList(4_000),
};

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

/** The hostile search query: every character NFKC-expands to five or six (`㌖` is `キロメートル`). */
const HOSTILE_QUERY = `${'\u3316'.repeat(113)} ${'\u3315'.repeat(135)}`;

/** 7 distinct words of 32 distinct letters, then 8 of two: every long word gets its 33 variants. */
const LARGEST_QUERY = [
  ...Array.from({ length: 7 }, (_, w) =>
    Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x430 + ((w * 5 + i) % 32))).join(''),
  ),
  ...Array.from({ length: 8 }, (_, w) => `q${w}`),
].join(' ');

function hostileSearch(atOnce: number, query = HOSTILE_QUERY): Promise<object> {
  return whileProbing('GET', `/api/skills/search?q=${encodeURIComponent(query)}`, Buffer.alloc(0), undefined, atOnce);
}

function hostileFindSkills(atOnce: number): Promise<object> {
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'find_skills', arguments: { query: HOSTILE_QUERY } },
  };
  return whileProbing('POST', '/api/mcp', Buffer.from(JSON.stringify(call)), 'application/json', atOnce, {
    accept: 'application/json, text/event-stream',
  });
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
    case 'frontmatter':
    case 'laughs':
    case 'aliases':
    case 'aliases-within-cap':
      return uploadWhileProbing('/api/skills/validate', FRONTMATTERS[probe]());
    case 'aliases-publish':
      return uploadWhileProbing('/api/skills', FRONTMATTERS.aliases());
    case 'upload':
      return slowUpload();
    case 'idle':
      return connections(1_001, false);
    case 'keepalive':
      return connections(1_001, true);
    case 'auth':
      return authFlood();
    case 'search':
      return hostileSearch(Number(countArg));
    case 'search-max':
      return hostileSearch(Number(countArg), LARGEST_QUERY);
    case 'search-mcp':
      return hostileFindSkills(Number(countArg));
    default:
      throw new Error(
        'probe: ghost, labels, frontmatter, laughs, aliases, aliases-publish, aliases-within-cap, upload, idle, keepalive, auth, search, search-mcp or search-max',
      );
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
