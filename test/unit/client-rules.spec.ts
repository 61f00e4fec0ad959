// The sandbox client's rules as tables: the package rules it unpacks with (the service's own), what
// it accepts from the task-skills answer and the lock, the service root, the cache scope, the
// stale-lock rule, the slow-download cut, what it prints, when it retries and where a redirect may
// lead. No service, no database.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readlinkSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError, IntegrityError, UsageError } from '../../src/client/errors';
import { describeRule, RateWindow } from '../../src/client/deadline';
import { breakIfStale, Holdings, isHeld, STALE_MS } from '../../src/client/file-lock';
import { DEFAULT_PACKAGE_LIMITS, maxDownloadBytes } from '../../src/client/limits';
import { LOCK_FILE, readLock } from '../../src/client/lock-file';
import { cacheScope, PackageCache, WATCHED_LOOK_MS } from '../../src/client/package-cache';
import { isControl, printable, printLines } from '../../src/client/printable';
import { redirectTarget } from '../../src/client/redirect';
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  CONNECTION_LOST,
  MAX_RETRIES,
  MAX_RETRY_AFTER_MS,
  retryAfterMs,
  RetryDecision,
  retryDecision,
  RetryInput,
} from '../../src/client/retry';
import { serviceRoot } from '../../src/client/service-client';
import { parseTaskSkills } from '../../src/client/task-skills';
import { unpackPackage } from '../../src/client/unpack';
import { loadConfig } from '../../src/config/app-config';
import { buildCanonicalZip } from '../../src/package/canonical-zip';
import { inspectPackage } from '../../src/package/inspect-package';
import { hostileZips } from '../support/hostile-zips';
import { buildZip, skillZip } from '../support/zip-builder';

const HASH = `sha256:${'ab'.repeat(32)}`;

describe('the package rules the client unpacks with', () => {
  it("are the service's defaults", () => {
    expect({ ...DEFAULT_PACKAGE_LIMITS }).toEqual(loadConfig({}).packageLimits);
  });

  it('a download cap no stored package can reach', () => {
    expect(maxDownloadBytes(DEFAULT_PACKAGE_LIMITS)).toBeGreaterThan(DEFAULT_PACKAGE_LIMITS.maxExpandedBytes);
  });

  it('unpack exactly the files of a stored (canonical) package, with their modes', () => {
    const files = [
      { path: 'SKILL.md', mode: '644' as const, data: Buffer.from('---\nname: s\ndescription: d\n---\n') },
      { path: 'scripts/run.sh', mode: '755' as const, data: Buffer.from('#!/bin/sh\n') },
      { path: 'é.txt', mode: '644' as const, data: Buffer.alloc(5000, 1) },
    ];
    const unpacked = unpackPackage(buildCanonicalZip('s', files), 's', DEFAULT_PACKAGE_LIMITS);
    expect(unpacked.map(({ path, mode, data }) => ({ path, mode, data }))).toEqual(files);
  });

  it.each(hostileZips('s').map((c) => [c.title, c.zip, c.codes] as const))(
    "give the service's verdict: %s",
    (_title, zip, codes) => {
      const server = inspectPackage(zip, { ...DEFAULT_PACKAGE_LIMITS }).valid;
      let client = true;
      try {
        unpackPackage(zip, 's', DEFAULT_PACKAGE_LIMITS);
      } catch (err) {
        expect(err).toBeInstanceOf(IntegrityError);
        client = false;
      }
      expect({ client, server }).toEqual({ client: codes.length === 0, server: codes.length === 0 });
    },
  );

  it.each<[string, Buffer, RegExp]>([
    ['another skill folder', skillZip('other'), /its skill folder is "other", not "s"/],
    ['two skill folders', buildZip([{ path: 'a/SKILL.md' }, { path: 'b/SKILL.md' }]), /ZIP_LAYOUT/],
    ['no SKILL.md', buildZip([{ path: 's/readme.md' }]), /SKILL_MD_MISSING/],
    ['not a zip', Buffer.from('<html>502 Bad Gateway</html>'), /ZIP_INVALID/],
    ['a path with ".."', buildZip([{ path: 's/SKILL.md' }, { path: 's/../x' }]), /ZIP_UNSAFE_PATH/],
    [
      'past the expanded size',
      buildZip([{ path: 's/SKILL.md' }, { path: 's/big', data: Buffer.alloc(2048) }]),
      /ZIP_ENTRY_TOO_LARGE/,
    ],
  ])('refuse %s', (_title, zip, message) => {
    const limits = { ...DEFAULT_PACKAGE_LIMITS, maxFileBytes: 1024 };
    expect(() => unpackPackage(zip, 's', limits)).toThrow(message);
  });
});

describe('the task-skills answer', () => {
  const ref = { skill_id: 7, namespace: 'default', is_public: false, version: 2, content_hash: HASH, pinned: false };
  const doc = (patch: Record<string, unknown>): Buffer =>
    Buffer.from(
      JSON.stringify({
        fingerprint: HASH,
        skills: ['b', 'a', 'gone'],
        preload_skills: ['a', 'gone'],
        skill_refs: { b: ref, a: { ...ref, skill_id: 8, allowed_tools: ['Read'], future: { x: 1 } } },
        preload_skill_refs: { a: { ...ref, skill_id: 8 } },
        unresolved: [
          { name: 'gone', source: 'ghost', reason: 'DELETED' },
          { name: 'other', source: 'task', reason: 'NOT_FOUND' },
        ],
        ...patch,
      }),
    );

  it('gives the refs by name, ignoring fields it does not use', () => {
    expect(parseTaskSkills(doc({}), false)).toEqual({
      fingerprint: HASH,
      refs: [
        { name: 'a', skill_id: 8, version: 2, content_hash: HASH },
        { name: 'b', skill_id: 7, version: 2, content_hash: HASH },
      ],
      unresolved: [
        { name: 'gone', source: 'ghost', reason: 'DELETED' },
        { name: 'other', source: 'task', reason: 'NOT_FOUND' },
      ],
    });
  });

  it('with --preload-only, the preload refs and the unresolved names of that list', () => {
    const parsed = parseTaskSkills(doc({}), true);
    expect(parsed.refs.map((r) => r.name)).toEqual(['a']);
    expect(parsed.unresolved.map((u) => u.name)).toEqual(['gone']);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a name with ".."', { skill_refs: { '../etc': ref } }],
    ['a name with a slash', { skill_refs: { 'a/b': ref } }],
    ['a hidden name', { skill_refs: { '.skill-resolver.lock.json': ref } }],
    ['an upper-case name', { skill_refs: { Alpha: ref } }],
    ['a name of 65 characters', { skill_refs: { ['a'.repeat(65)]: ref } }],
    ['an empty name', { skill_refs: { '': ref } }],
    ['a short content hash', { skill_refs: { a: { ...ref, content_hash: 'sha256:abc' } } }],
    ['another digest', { skill_refs: { a: { ...ref, content_hash: `md5:${'a'.repeat(32)}` } } }],
    ['a version of 0', { skill_refs: { a: { ...ref, version: 0 } } }],
    ['a string id', { skill_refs: { a: { ...ref, skill_id: '7' } } }],
    ['no fingerprint', { fingerprint: null }],
    ['no refs', { skill_refs: [] }],
  ])('refuses %s', (_title, patch) => {
    expect(() => parseTaskSkills(doc(patch), false)).toThrow(ClientError);
  });

  it('refuses what is not JSON', () => {
    expect(() => parseTaskSkills(Buffer.from('<html>'), false)).toThrow(/not JSON/);
  });
});

describe('the service root', () => {
  it.each([
    ['http://h:3000', 'http://h:3000', '/api'],
    ['http://h:3000/', 'http://h:3000', '/api'],
    ['http://h:3000/api', 'http://h:3000', '/api'],
    ['https://h/skills/', 'https://h/skills', '/skills/api'],
    ['https://h/skills/api/', 'https://h/skills', '/skills/api'],
  ])('%s', (raw, url, apiPrefix) => {
    expect(serviceRoot(raw)).toEqual(expect.objectContaining({ url, apiPrefix }));
  });

  it.each(['h:3000', 'ftp://h', 'http://user:pw@h', 'http://h/?token=x', 'not a url'])('refuses %s', (raw) => {
    expect(() => serviceRoot(raw)).toThrow(UsageError);
  });
});

describe('the cache scope', () => {
  it('is a digest of the service URL alone: every identity on a host shares it', () => {
    const scope = cacheScope('http://h');
    expect(scope).toMatch(/^[0-9a-f]{32}$/);
    expect(cacheScope('http://h')).toBe(scope);
    expect(cacheScope('http://other')).not.toBe(scope);
    expect(cacheScope('http://h/skills')).not.toBe(scope);
  });
});

describe('the lock of DIR', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sr-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const skill = { skill_id: 1, version: 1, content_hash: HASH, files: [] };
  const write = (lock: unknown): void => writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lock));
  const base = { url: 'http://h', task_id: 1, preload_only: false, fingerprint: HASH, unresolved: [] };

  it('is read back', async () => {
    write({ ...base, skills: { a: skill } });
    expect(await readLock(dir)).toEqual({ ...base, skills: { a: skill } });
  });

  it.each<[string, unknown]>([
    ['not JSON', '{'],
    ['a name outside DIR', { ...base, skills: { '../../home': skill } }],
    [
      'a file path outside its folder',
      {
        ...base,
        skills: { a: { ...skill, files: [{ path: '../x', size: 1, sha256: 'ab'.repeat(32), mode: '644' }] } },
      },
    ],
    ['no task', { ...base, task_id: 'x', skills: {} }],
  ])('is refused as damaged: %s', async (_title, lock) => {
    writeFileSync(join(dir, LOCK_FILE), typeof lock === 'string' ? lock : JSON.stringify(lock));
    await expect(readLock(dir)).rejects.toThrow(/is damaged/);
  });
});

describe('lock files and their stale rule', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sr-flock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const ns = readlinkSync('/proc/self/ns/pid');
  const holder = (pid: number, extra: object = {}): string =>
    JSON.stringify({ pid, host: hostname(), ns, nonce: 'n', ...extra });
  const deadPid = (): number =>
    Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());

  it('one holder at a time; released, it is free again', async () => {
    const [a, b] = [new Holdings(), new Holdings()];
    const path = join(dir, 'x.lock');
    expect(await a.acquire(path)).toBe(true);
    expect(await b.acquire(path)).toBe(false);
    expect(await isHeld(path)).toBe(true);
    await a.release(path);
    expect(await b.acquire(path)).toBe(true);
    await b.releaseAll();
  });

  it.each<[string, boolean, () => string, number]>([
    ['a live holder on this host', false, () => holder(process.ppid), 0],
    ['a holder whose pid is gone', true, () => holder(deadPid()), 0],
    ['a gone pid in another pid namespace: only its age counts', false, () => holder(deadPid(), { ns: 'pid:[1]' }), 0],
    ['a holder on another host, refreshed lately', false, () => holder(1, { host: 'elsewhere' }), 0],
    ['a holder on another host, silent too long', true, () => holder(1, { host: 'elsewhere' }), STALE_MS + 1000],
    ['an empty file (killed before writing), young', false, () => '', 0],
    ['an empty file, old', true, () => '', STALE_MS + 1000],
  ])('%s: stale %s', async (_title, stale, content, ageMs) => {
    const path = join(dir, 'x.lock');
    writeFileSync(path, content());
    const when = new Date(Date.now() - ageMs);
    utimesSync(path, when, when);
    expect(await breakIfStale(path)).toBe(stale);
    expect(await isHeld(path)).toBe(!stale);
  });
});

describe('the slow-download cut', () => {
  const rule = { windowMs: 30_000, bytesPerSecond: 1024 };
  /** Feeds `chunks` ([ms since start, bytes]) and checks every second; the second of the first cut, or null. */
  const cutAt = (chunks: Array<[number, number]>, until: number, r = rule): number | null => {
    const window = new RateWindow(r, 0);
    const queue = [...chunks];
    for (let now = 1000; now <= until; now += 1000) {
      while (queue.length > 0 && queue[0][0] <= now) window.received(queue.shift()![1]);
      if (window.tooSlow(now)) return now / 1000;
    }
    return null;
  };
  const every = (stepMs: number, bytes: number, until: number): Array<[number, number]> =>
    Array.from({ length: Math.floor(until / stepMs) }, (_, i) => [(i + 1) * stepMs, bytes]);

  it.each<[string, Array<[number, number]>, number, number | null]>([
    ['nothing at all (the head held back): cut once a window passed', [], 60_000, 30],
    ['a 10 MiB body in half a second: never (it ends first)', [[500, 10 * 2 ** 20]], 1_000, null],
    ['1 byte every 2 s: cut after one window', every(2000, 1, 120_000), 120_000, 30],
    ['just over 1 KiB/s for two minutes: never', every(1000, 1030, 120_000), 120_000, null],
    ['just under 1 KiB/s: cut after one window', every(1000, 1000, 120_000), 120_000, 30],
    ['fast, then stalled: cut one window after the stall', [[1000, 2 ** 20]], 120_000, 31],
    ['a burst each 40 s, 1 MiB each: cut in the first gap', every(40_000, 2 ** 20, 120_000), 120_000, 30],
  ])('%s', (_title, chunks, until, expected) => {
    expect(cutAt(chunks, until)).toBe(expected);
  });

  it('a rate of 0 never cuts', () => {
    expect(cutAt([], 300_000, { windowMs: 30_000, bytesPerSecond: 0 })).toBeNull();
  });

  it('reads as a person writes it', () => {
    expect(describeRule(rule)).toBe('1 KiB/s over 30 s');
    expect(describeRule({ windowMs: 1500, bytesPerSecond: 100 })).toBe('100 B/s over 1.5 s');
  });
});

describe('what the command prints: control characters as escapes', () => {
  it.each<[string, string, string]>([
    ['plain text stays', 'alpha v2 from download (3.0 KiB)', 'alpha v2 from download (3.0 KiB)'],
    ['accents, CJK and emoji stay', 'café 技能 🙂', 'café 技能 🙂'],
    ['a backslash stays', 'C:\\skills\\a', 'C:\\skills\\a'],
    ['clear screen (ESC [2J)', 'x\u001b[2Jy', 'x\\u001b[2Jy'],
    ['a window title (OSC 0 ... BEL)', '\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007'],
    ['a forged line (CR LF)', 'denied\r\nskill-resolver: sync ok', 'denied\\r\\nskill-resolver: sync ok'],
    ['a carriage return alone', 'a\rb', 'a\\rb'],
    ['a tab', 'a\tb', 'a\\tb'],
    ['NUL, backspace and the rest of C0', '\u0000\u0008\u001f', '\\u0000\\u0008\\u001f'],
    ['DEL', 'a\u007fb', 'a\\u007fb'],
    ['C1: CSI and NEL', '\u009b2J\u0085', '\\u009b2J\\u0085'],
    ['C1 bounds', '\u0080\u009f\u00a0', '\\u0080\\u009f\u00a0'],
    ['bidi: RLO and PDF (a name shown reversed)', 'evil\u202etxt.exe\u202c', 'evil\\u202etxt.exe\\u202c'],
    ['bidi: LRM, RLM and ALM', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['bidi: isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['bidi: embeddings and overrides', '\u202a\u202b\u202d', '\\u202a\\u202b\\u202d'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['neighbours that are not controls stay', '\u200d\u2027\u202f\u2065\u206a', '\u200d\u2027\u202f\u2065\u206a'],
  ])('%s', (_title, text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('leaves no control character at all, over every UTF-16 unit', () => {
    const every = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).join('');
    const shown = printable(every);
    for (let i = 0; i < shown.length; i++) expect(isControl(shown.charCodeAt(i))).toBe(false);
    // Exactly the listed characters: C0 (32), DEL, C1 (32), the bidi controls (12), the separators (2).
    expect(Array.from({ length: 0x10000 }, (_, code) => code).filter(isControl)).toHaveLength(79);
  });

  it('keeps a JSON line valid JSON with the same value', () => {
    const value = { message: '\u001b[2J\u0085\u202e\u2028\u007f', name: 'a\\b"c' };
    const line = printable(JSON.stringify(value));
    expect([...line].some((c) => isControl(c.charCodeAt(0)))).toBe(false);
    expect(JSON.parse(line)).toEqual(value);
  });

  it('prints whole lines: each made printable, each ended by one newline', () => {
    const written: string[] = [];
    printLines((text) => written.push(text), ['error: \u001b[2J401', '', 'sync \r\nok']);
    expect(written).toEqual(['error: \\u001b[2J401\n\nsync \\r\\nok\n']);
  });
});

describe('when a request is sent again', () => {
  const NOW = Date.parse('2026-12-05T10:00:00Z');
  const base: RetryInput = {
    status: 503,
    attempt: 0,
    retryAfter: undefined,
    remainingMs: 300_000,
    now: NOW,
    random: 0.5,
  };
  const decide = (patch: Partial<RetryInput>): RetryDecision => retryDecision({ ...base, ...patch });

  it.each<[string, Partial<RetryInput>, RetryDecision]>([
    ['503, first retry: half of the first window', {}, { retry: true, waitMs: BACKOFF_BASE_MS / 2 }],
    ['429 likewise', { status: 429 }, { retry: true, waitMs: BACKOFF_BASE_MS / 2 }],
    [
      'a connection lost before any answer likewise',
      { status: CONNECTION_LOST },
      { retry: true, waitMs: BACKOFF_BASE_MS / 2 },
    ],
    [
      'a connection lost, the attempts spent',
      { status: CONNECTION_LOST, attempt: MAX_RETRIES },
      { retry: false, why: 'attempts' },
    ],
    ['the window doubles with each retry', { attempt: 3 }, { retry: true, waitMs: (BACKOFF_BASE_MS * 8) / 2 }],
    ['up to its cap', { attempt: 7 }, { retry: true, waitMs: BACKOFF_CAP_MS / 2 }],
    ['full jitter: as low as 0', { attempt: 5, random: 0 }, { retry: true, waitMs: 0 }],
    ['full jitter: just under the window', { attempt: 2, random: 0.999 }, { retry: true, waitMs: 999 }],
    ['Retry-After in seconds', { retryAfter: '3', random: 0 }, { retry: true, waitMs: 3000 }],
    [
      'Retry-After plus its jitter',
      { retryAfter: '3', random: 0.5 },
      { retry: true, waitMs: 3000 + BACKOFF_BASE_MS / 2 },
    ],
    ['Retry-After 0: at once', { retryAfter: '0', random: 0 }, { retry: true, waitMs: 0 }],
    [
      'Retry-After as an HTTP date',
      { retryAfter: 'Sat, 05 Dec 2026 10:00:07 GMT', random: 0 },
      { retry: true, waitMs: 7000 },
    ],
    [
      'Retry-After as a date gone by: at once',
      { retryAfter: 'Sat, 05 Dec 2026 09:00:00 GMT', random: 0 },
      { retry: true, waitMs: 0 },
    ],
    [
      'Retry-After unreadable: the backoff',
      { retryAfter: 'soon', attempt: 1 },
      { retry: true, waitMs: BACKOFF_BASE_MS },
    ],
    ['Retry-After negative: the backoff', { retryAfter: '-5' }, { retry: true, waitMs: BACKOFF_BASE_MS / 2 }],
    [
      'Retry-After at the cap',
      { retryAfter: String(MAX_RETRY_AFTER_MS / 1000), random: 0 },
      { retry: true, waitMs: MAX_RETRY_AFTER_MS },
    ],
    [
      'Retry-After past the cap: stop, not hammer early',
      { retryAfter: String(MAX_RETRY_AFTER_MS / 1000 + 1) },
      { retry: false, why: 'retry-after' },
    ],
    [
      'a wait past the deadline is not started',
      { retryAfter: '10', remainingMs: 9_000 },
      { retry: false, why: 'deadline' },
    ],
    [
      'nor one that ends right at it',
      { random: 0.5, remainingMs: BACKOFF_BASE_MS / 2 },
      { retry: false, why: 'deadline' },
    ],
    [
      'one that fits is',
      { random: 0.5, remainingMs: BACKOFF_BASE_MS / 2 + 1 },
      { retry: true, waitMs: BACKOFF_BASE_MS / 2 },
    ],
    ['the deadline passed', { remainingMs: 0, random: 0 }, { retry: false, why: 'deadline' }],
    ['the last retry allowed', { attempt: MAX_RETRIES - 1 }, { retry: true, waitMs: BACKOFF_CAP_MS / 2 }],
    ['no more after it', { attempt: MAX_RETRIES }, { retry: false, why: 'attempts' }],
    ['500: never', { status: 500 }, { retry: false, why: 'status' }],
    ['502: never', { status: 502 }, { retry: false, why: 'status' }],
    ['504: never', { status: 504 }, { retry: false, why: 'status' }],
    ['401: never', { status: 401 }, { retry: false, why: 'status' }],
    ['404: never', { status: 404 }, { retry: false, why: 'status' }],
    ['410: never', { status: 410 }, { retry: false, why: 'status' }],
    ['200: never', { status: 200 }, { retry: false, why: 'status' }],
  ])('%s', (_title, patch, expected) => {
    expect(decide(patch)).toEqual(expected);
  });

  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['', undefined],
    ['120', 120_000],
    [' 2 ', 2000],
    ['1.5', undefined],
    ['12abc', undefined],
    ['Sat, 05 Dec 2026 10:01:00 GMT', 60_000],
    ['Saturday, 05-Dec-26 10:01:00 GMT', 60_000],
    ['2026-12-05T10:01:00Z', undefined],
  ])('Retry-After %j waits %j ms', (value, ms) => {
    expect(retryAfterMs(value, NOW)).toBe(ms);
  });

  it('the longest run of retries fits in about 30 s', () => {
    let worst = 0;
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      const d = decide({ attempt, random: 0.99999 });
      if (d.retry) worst += d.waitMs;
    }
    expect(worst).toBeLessThan(32_000);
    expect(worst).toBeGreaterThan(25_000);
  });
});

describe('where a download may be redirected', () => {
  const from = new URL('https://skills.example.com/api/skills/7/download?version=2');
  const plain = new URL('http://127.0.0.1:3000/api/skills/7/download?version=2');

  it.each<[string, string, URL, string | undefined, string | null]>([
    [
      'an https store from an https service',
      'https:',
      from,
      'https://store.example.com/p/ab.zip?X-Amz-Signature=1',
      'https://store.example.com/p/ab.zip?X-Amz-Signature=1',
    ],
    [
      'a relative Location, against the request',
      'https:',
      from,
      '/blobs/ab.zip',
      'https://skills.example.com/blobs/ab.zip',
    ],
    [
      'an http store from an http service',
      'http:',
      plain,
      'http://127.0.0.1:9000/b/ab.zip',
      'http://127.0.0.1:9000/b/ab.zip',
    ],
    [
      'an https store from an http service',
      'http:',
      plain,
      'https://store.example.com/ab.zip',
      'https://store.example.com/ab.zip',
    ],
    ['Location padded with spaces', 'https:', from, '  https://s.example.com/a  ', 'https://s.example.com/a'],
  ])('followed: %s', (_title, protocol, request, location, url) => {
    expect(redirectTarget(protocol, request, location)).toEqual({ ok: true, url: new URL(url!) });
  });

  it.each<[string, string, URL, string | undefined, RegExp]>([
    [
      'http from an https service (a downgrade)',
      'https:',
      from,
      'http://store.example.com/ab.zip',
      /only https is followed/,
    ],
    ['ftp', 'http:', plain, 'ftp://store.example.com/ab.zip', /a ftp URL; only https or http/],
    ['file', 'http:', plain, 'file:///etc/passwd', /a file URL/],
    ['data', 'https:', from, 'data:application/zip;base64,AAAA', /a data URL/],
    ['javascript', 'https:', from, 'javascript:alert(1)', /a javascript URL/],
    ['no Location', 'https:', from, undefined, /names no Location/],
    ['an empty Location', 'https:', from, '  ', /names no Location/],
    ['not a URL', 'https:', from, 'http://[::1', /not a URL/],
    ['credentials in the URL', 'https:', from, 'https://user:pw@store.example.com/ab.zip', /carries credentials/],
  ])('refused: %s', (_title, protocol, request, location, why) => {
    const target = redirectTarget(protocol, request, location);
    expect(target.ok).toBe(false);
    expect(target.ok ? '' : target.why).toMatch(why);
  });
});

describe('a wait for a package another sync is fetching', () => {
  let root: string;
  let cache: PackageCache;
  const hex = 'c'.repeat(64);
  const never = new AbortController().signal;
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'sr-watch-'));
    cache = await PackageCache.open(root, 'b'.repeat(32), new Holdings());
  });
  afterEach(() => {
    cache.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('wakes when the entry lands and when the download lock goes, not when the lock is refreshed', async () => {
    expect(cache.changesTo(hex)).toBeNull();
    expect(cache.watch()).toBe(true);
    const lock = join(cache.scopeDir, `${hex}.lock`);
    writeFileSync(lock, '{}');
    await new Promise((r) => setTimeout(r, 50));
    // Taken before looking; the entry lands between the look and the wait, and is seen.
    let since = cache.changesTo(hex)!;
    writeFileSync(join(cache.scopeDir, '.partial-x'), 'zip');
    renameSync(join(cache.scopeDir, '.partial-x'), cache.entryPath(hex));
    await cache.waitForChange(hex, since, never);
    expect(cache.changesTo(hex)).toBeGreaterThan(since);

    since = cache.changesTo(hex)!;
    setTimeout(() => rmSync(lock), 20);
    await cache.waitForChange(hex, since, never);
    expect(cache.changesTo(hex)).toBeGreaterThan(since);

    // A heartbeat (a new mtime) and another package's entry change nothing for it: the wait ends
    // at its bound, the count unchanged.
    writeFileSync(lock, '{}');
    await new Promise((r) => setTimeout(r, 50));
    since = cache.changesTo(hex)!;
    setTimeout(() => {
      const when = new Date();
      utimesSync(lock, when, when);
      writeFileSync(cache.entryPath('d'.repeat(64)), 'zip');
    }, 20);
    const started = Date.now();
    await cache.waitForChange(hex, since, never);
    expect(Date.now() - started).toBeGreaterThanOrEqual(WATCHED_LOOK_MS - 50);
    expect(cache.changesTo(hex)).toBe(since);
  });

  it('ends when the run is stopped', async () => {
    cache.watch();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    const since = cache.changesTo(hex)!;
    await cache.waitForChange(hex, since, stop.signal);
    expect(stop.signal.aborted).toBe(true);
    expect(cache.changesTo(hex)).toBe(since);
  });
});
