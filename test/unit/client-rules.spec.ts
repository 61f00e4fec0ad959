// The sandbox client's rules as tables: the package rules it unpacks with (the service's own), what
// it accepts from the task-skills answer and the lock, the service root, the cache scope, the
// stale-lock rule and the slow-download cut. No service, no database.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError, IntegrityError, UsageError } from '../../src/client/errors';
import { describeRule, RateWindow } from '../../src/client/deadline';
import { breakIfStale, Holdings, isHeld, STALE_MS } from '../../src/client/file-lock';
import { DEFAULT_PACKAGE_LIMITS, maxDownloadBytes } from '../../src/client/limits';
import { LOCK_FILE, readLock } from '../../src/client/lock-file';
import { cacheScope } from '../../src/client/package-cache';
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
