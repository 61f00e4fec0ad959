// Package inspection runs off the HTTP event loop (docs/packages.md#inspection-off-the-event-loop, docs/limits.md#hostile-input): while hostile packages are
// inspected, other requests are answered promptly; inspections have a deadline and bounded
// admission, and one user may hold at most a few uploads at once.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { probeEventLoop } from '../support/raw-http';
import { publish, skillRowCounts } from '../support/skills';
import { as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { buildZip, skillZip, ZipEntryInput } from '../support/zip-builder';

const MiB = 1024 * 1024;

/** A package that passes every limit but makes a worker expand, hash and deflate about 60 MiB. */
function heavyPackage(name: string): Buffer {
  const block = randomBytes(7000);
  const data = Buffer.alloc(4 * MiB);
  for (let at = 0; at < data.length; at += block.length) block.copy(data, at);
  const files: ZipEntryInput[] = Array.from({ length: 15 }, (_, i) => ({ path: `${name}/data-${i}.bin`, data }));
  return buildZip([{ path: `${name}/SKILL.md`, data: `---\nname: ${name}\ndescription: Heavy.\n---\n` }, ...files]);
}

function skillMd(yaml: string): string {
  return `---\nname: hostile\ndescription: x\n${yaml}\n---\n`;
}

/** The hostile review's cases, as packages. */
function hostilePackages(): Array<[string, Buffer, string[]]> {
  const keys = Array.from({ length: 40_000 }, (_, i) => `  k${i}: v`).join('\n');
  const list = `[${Array.from({ length: 5_000 }, () => '1').join(',')}]`;
  const aliases = `[${Array.from({ length: 99 }, () => '*a').join(',')}]`;
  const laughs = [
    `a: &a [${'x,'.repeat(9)}x]`,
    ...['b', 'c', 'd', 'e'].map((n, i) => `${n}: &${n} [${Array(10).fill(`*${'abcd'[i]}`).join(',')}]`),
  ].join('\n');
  const store = (yaml: string): Buffer =>
    buildZip([{ path: 'hostile/SKILL.md', data: skillMd(yaml), method: 'store' }]);
  return [
    ['40,000 metadata keys (96 KB)', store(`metadata:\n${keys}`), ['FRONTMATTER_INVALID']],
    ['a 5,000-item list aliased 99 times', store(`a: &a ${list}\nb: ${aliases}`), ['FRONTMATTER_INVALID']],
    ['a billion-laughs frontmatter', store(laughs), ['FRONTMATTER_INVALID']],
    [
      'a 200 MiB zip bomb',
      buildZip([
        { path: 'hostile/SKILL.md', data: skillMd('') },
        { path: 'hostile/zeros.bin', data: Buffer.alloc(200 * MiB) },
      ]),
      ['ZIP_ENTRY_TOO_LARGE'],
    ],
    ['60 MiB of files within every limit', heavyPackage('hostile'), []],
  ];
}

describe('package inspection off the event loop', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
    user = await createUser(t, 'prober');
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(hostilePackages().map(([title, zip, codes]) => [title, zip, codes] as const))(
    'health/live never waits over 200 ms while it inspects %s',
    async (title, zip, codes) => {
      const watch = await probeEventLoop((t.app.getHttpServer().address() as AddressInfo).port);
      await new Promise((resolve) => setTimeout(resolve, 120));
      const started = performance.now();
      const res = await t.http
        .post('/api/skills/validate')
        .set(as(user.key))
        .attach('file', zip, { filename: 'p.zip', contentType: 'application/zip' });
      const answeredMs = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 120));
      const { maxMs: max, probes: count } = await watch.stop();
      if (process.env.INSPECTION_REPORT) {
        process.stdout.write(
          `| ${title} | ${zip.length} B | ${Math.round(answeredMs)} ms | ${Math.round(max)} ms (${count} probes) |\n`,
        );
      }
      expect(res.status).toBe(200);
      expect(res.body.errors.map((p: { code: string }) => p.code)).toEqual(codes);
      expect(count).toBeGreaterThanOrEqual(3);
      expect(max).toBeLessThan(200);
    },
  );
});

describe('inspection admission, deadline and upload slots', () => {
  let t: TestApp;
  let users: TestUser[];

  beforeAll(async () => {
    t = await startTestApp({ INSPECTION_WORKERS: '1', MAX_UPLOADS_PER_USER: '2' });
    await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
    users = await Promise.all(['u1', 'u2', 'u3', 'u4'].map((name) => createUser(t, name)));
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 429 RATE_LIMITED with Retry-After past twice the workers, and stores nothing for it', async () => {
    const before = await skillRowCounts(t);
    // Six packages that each keep the one worker busy for a while arrive together: two are
    // admitted at once, and whatever arrives while both are in flight is turned away.
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => publish(t, users[i % 3], heavyPackage(`heavy-${i}`))),
    );
    const statuses = results.map((res) => res.status);
    expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(2);
    const limited = results.filter((res) => res.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    for (const res of limited) {
      expectError(res, 429, 'RATE_LIMITED');
      expect(res.headers['retry-after']).toBe('1');
    }
    const after = await skillRowCounts(t);
    expect(after.skills).toBe(before.skills + statuses.filter((status) => status === 201).length);
  });

  it('lets one user hold at most MAX_UPLOADS_PER_USER uploads at once', async () => {
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const user = users[3];
    // Two uploads whose bodies never finish hold both slots.
    const open = [0, 1].map(() => {
      const req = httpRequest({
        port,
        method: 'POST',
        path: '/api/skills',
        agent: false,
        headers: {
          authorization: `Bearer ${user.key}`,
          'content-type': 'multipart/form-data; boundary=xyz',
          'transfer-encoding': 'chunked',
        },
      });
      req.on('error', () => undefined);
      req.write('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n');
      return req;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const third = await publish(t, user, skillZip('third-upload'));
    expectError(third, 429, 'RATE_LIMITED');
    expect(third.headers['retry-after']).toBe('1');
    // Another user is not affected.
    expect((await publish(t, users[0], skillZip('other-user-upload'))).status).toBe(201);
    for (const req of open) req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await publish(t, user, skillZip('after-release'))).status).toBe(201);
  });
});

describe('the inspection deadline', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ INSPECTION_WORKERS: '1', INSPECTION_TIMEOUT_MS: '100' });
    user = await createUser(t, 'late');
  });
  afterAll(async () => {
    await t.close();
  });

  it('rejects a package still being inspected at the deadline, stores nothing, and replaces the worker', async () => {
    const before = await skillRowCounts(t);
    const res = await publish(t, user, heavyPackage('too-slow'));
    const body = expectError(res, 400, 'SKILL_INVALID') as {
      details: { errors: Array<{ code: string; message: string }> };
    };
    expect(body.details.errors).toEqual([
      { code: 'ZIP_INVALID', message: 'The package could not be inspected within 100 ms.' },
    ]);
    expect(await skillRowCounts(t)).toEqual(before);
    expect((await publish(t, user, skillZip('quick-after'))).status).toBe(201);
  });
});
