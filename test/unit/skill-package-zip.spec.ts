// Hostile and broken archives: unsafe entries, layout, limits counted on real bytes, and a zip bomb.
import { randomBytes } from 'node:crypto';
import type { PackageLimits } from '../../src/package/limits';
import { PackageInspection, ProblemCode, inspectPackage } from '../../src/package/inspect-package';
import { listZip, outputChunk } from '../../src/package/zip-reader';
import { hostileZips } from '../support/hostile-zips';
import { ZipEntryInput, buildZip, skillZip } from '../support/zip-builder';
import { DEFAULT_LIMITS as LIMITS } from '../support/package-limits';

const MiB = 1024 * 1024;
const SKILL_MD: ZipEntryInput = { path: 's/SKILL.md', data: '---\nname: s\ndescription: A skill.\n---\n' };
const codes = (result: PackageInspection): string[] => result.errors.map((problem) => problem.code);

/** Offsets of the central directory headers, for cases a well-behaved writer cannot produce. */
function centralHeaders(zip: Buffer): number[] {
  const eocd = zip.length - 22;
  const offsets: number[] = [];
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < zip.readUInt16LE(eocd + 10); i++) {
    offsets.push(at);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return offsets;
}

function patched(zip: Buffer, patch: (copy: Buffer, centrals: number[]) => void): Buffer {
  const copy = Buffer.from(zip);
  patch(copy, centralHeaders(copy));
  return copy;
}

describe('inspectPackage: archive entries', () => {
  it.each<[string, ZipEntryInput[], ProblemCode[], string | null]>([
    ['a ".." segment', [SKILL_MD, { path: '../x' }], ['ZIP_UNSAFE_PATH'], '../x'],
    ['a ".." segment inside the root', [SKILL_MD, { path: 's/../../x' }], ['ZIP_UNSAFE_PATH'], 's/../../x'],
    ['an absolute path', [SKILL_MD, { path: '/etc/x' }], ['ZIP_UNSAFE_PATH'], '/etc/x'],
    ['a drive letter', [SKILL_MD, { path: 'C:/x' }], ['ZIP_UNSAFE_PATH'], 'C:/x'],
    ['a backslash', [SKILL_MD, { path: 's\\..\\x' }], ['ZIP_UNSAFE_PATH'], 's\\..\\x'],
    ['an empty segment', [SKILL_MD, { path: 's//x' }], ['ZIP_UNSAFE_PATH'], 's//x'],
    ['a "." segment', [SKILL_MD, { path: 's/./x' }], ['ZIP_UNSAFE_PATH'], 's/./x'],
    ['a control character', [SKILL_MD, { path: 's/x\u0000.sh' }], ['ZIP_UNSAFE_PATH'], 's/x\u0000.sh'],
    ['a path of 513 bytes (258 characters)', [SKILL_MD, { path: `s/${'é'.repeat(255)}x` }], ['ZIP_UNSAFE_PATH'], null],
    ['a path of exactly 512 bytes', [SKILL_MD, { path: `s/${'a'.repeat(510)}` }], [], null],
    ['a symlink', [SKILL_MD, { path: 's/passwd', data: '/etc/passwd', mode: 0o120777 }], ['ZIP_SYMLINK'], 's/passwd'],
    [
      'a symlink under __MACOSX/',
      [SKILL_MD, { path: '__MACOSX/s/x', data: '/', mode: 0o120777 }],
      ['ZIP_SYMLINK'],
      null,
    ],
    ['a FIFO', [SKILL_MD, { path: 's/pipe', mode: 0o010644 }], ['ZIP_UNSAFE_PATH'], 's/pipe'],
    ['a device', [SKILL_MD, { path: 's/sda', mode: 0o060660 }], ['ZIP_UNSAFE_PATH'], 's/sda'],
    ['folder mode bits on a name without "/"', [SKILL_MD, { path: 's/dir', mode: 0o040755 }], ['ZIP_INVALID'], 's/dir'],
    ['paths equal but for case', [SKILL_MD, { path: 's/a.md' }, { path: 's/A.md' }], ['ZIP_DUPLICATE_PATH'], 's/A.md'],
    [
      'paths equal once NFC-normalised',
      [SKILL_MD, { path: 's/\u00e9' }, { path: 's/e\u0301' }],
      ['ZIP_DUPLICATE_PATH'],
      null,
    ],
    [
      'the same folder twice',
      [SKILL_MD, { path: 's/d/', directory: true }, { path: 's/D/', directory: true }],
      ['ZIP_DUPLICATE_PATH'],
      null,
    ],
    ['a file also used as a folder', [SKILL_MD, { path: 's/x' }, { path: 's/x/y' }], ['ZIP_DUPLICATE_PATH'], 's/x'],
    ['an encrypted entry', [SKILL_MD, { path: 's/secret', data: 'x', encrypted: true }], ['ZIP_ENCRYPTED'], 's/secret'],
    ['an encrypted SKILL.md', [{ ...SKILL_MD, encrypted: true }], ['ZIP_ENCRYPTED'], 's/SKILL.md'],
    ['a file outside the skill folder', [SKILL_MD, { path: 'README.md' }], ['ZIP_LAYOUT'], 'README.md'],
    ['a folder outside the skill folder', [SKILL_MD, { path: 'other/', directory: true }], ['ZIP_LAYOUT'], 'other/'],
    ['the skill folder entry itself', [{ path: 's/', directory: true }, SKILL_MD], [], null],
    ['two skill folders', [SKILL_MD, { path: 't/SKILL.md', data: 'x' }], ['ZIP_LAYOUT'], null],
    ['no SKILL.md', [{ path: 's/README.md', data: 'x' }], ['SKILL_MD_MISSING'], null],
    ['SKILL.md only in a subfolder', [{ path: 's/t/SKILL.md', data: 'x' }], ['SKILL_MD_MISSING'], 's/t/SKILL.md'],
    ['skill.md in lower case', [{ path: 's/skill.md', data: 'x' }], ['SKILL_MD_MISSING'], null],
    [
      'only ignored entries',
      [{ path: '__MACOSX/s/SKILL.md', data: 'x' }, { path: '.DS_Store' }],
      ['SKILL_MD_MISSING'],
      null,
    ],
  ])('%s', async (_title, entries, expected, field) => {
    const result = inspectPackage(buildZip(entries), LIMITS);
    expect(codes(result)).toEqual(expected);
    if (field !== null) expect(result.errors[0].field).toBe(field);
    expect(result.revision).toEqual(expected.length === 0 ? expect.stringMatching(/^sha256:[0-9a-f]{64}$/) : null);
  });

  it('reports every central-directory problem and the frontmatter problems together', async () => {
    const result = inspectPackage(
      buildZip([
        { path: 's/SKILL.md', data: '---\nname: Bad\n---\n' },
        { path: '../escape' },
        { path: 's/link', mode: 0o120777 },
        { path: 's/a.md' },
        { path: 's/A.md' },
        { path: 's/secret', encrypted: true },
        { path: 'stray.txt' },
      ]),
      LIMITS,
    );
    expect(codes(result)).toEqual([
      'ZIP_UNSAFE_PATH',
      'ZIP_SYMLINK',
      'ZIP_ENCRYPTED',
      'ZIP_DUPLICATE_PATH',
      'ZIP_LAYOUT',
      'NAME_INVALID',
      'DESCRIPTION_MISSING',
    ]);
  });

  it('takes the mode from the Unix attribute bytes, whatever host made the entry', async () => {
    const zip = buildZip([SKILL_MD, { path: 's/run.sh', mode: 0o100755 }]);
    // Version made by 0 is MS-DOS; extractors still honour a Unix mode in the high bytes.
    const fromDos = patched(zip, (copy, [, runSh]) => copy.writeUInt16LE(20, runSh + 4));
    const noMode = patched(fromDos, (copy, [, runSh]) => copy.writeUInt32LE(0x20, runSh + 38));
    const [unix, dos, plain] = [
      inspectPackage(zip, LIMITS),
      inspectPackage(fromDos, LIMITS),
      inspectPackage(noMode, LIMITS),
    ];
    expect(unix.files.find((file) => file.path === 'run.sh')?.mode).toBe('755');
    expect(dos.files.find((file) => file.path === 'run.sh')?.mode).toBe('755');
    expect(plain.files.find((file) => file.path === 'run.sh')?.mode).toBe('644');
    expect(dos.revision).toBe(unix.revision);
    expect(plain.revision).not.toBe(unix.revision);
  });
});

describe('inspectPackage: damaged archives', () => {
  const good = buildZip([SKILL_MD, { path: 's/data.txt', data: 'stored data', method: 'store' }]);

  it.each<[string, Buffer]>([
    ['an empty upload', Buffer.alloc(0)],
    ['text that is not a zip', Buffer.from('hello, this is not a zip')],
    ['a damaged central directory', patched(good, (copy, [, data]) => copy.writeUInt32LE(0, data))],
    ['a truncated archive', good.subarray(0, good.length - 10)],
    ['an archive cut before its central directory', good.subarray(0, 40)],
    [
      'a flipped data byte (CRC-32 mismatch)',
      patched(good, (copy, [, data]) => {
        const local = copy.readUInt32LE(data + 42);
        copy[local + 30 + 's/data.txt'.length] ^= 0xff;
      }),
    ],
    [
      'corrupt deflate data',
      patched(good, (copy) => {
        copy.fill(0xff, 30 + 's/SKILL.md'.length, 30 + 's/SKILL.md'.length + 4);
      }),
    ],
    [
      'a local header naming another file',
      patched(good, (copy, [, data]) => {
        const local = copy.readUInt32LE(data + 42);
        copy.write('s/evil.sh!', local + 30, 'latin1');
      }),
    ],
    [
      'two entries sharing one local header',
      patched(good, (copy, [skill, data]) => copy.writeUInt32LE(copy.readUInt32LE(skill + 42), data + 42)),
    ],
    [
      'an unsupported compression method',
      patched(good, (copy, [, data]) => {
        const local = copy.readUInt32LE(data + 42);
        copy.writeUInt16LE(12, data + 10);
        copy.writeUInt16LE(12, local + 8);
      }),
    ],
  ])('answers ZIP_INVALID for %s without throwing', async (_title, bytes) => {
    const result = inspectPackage(bytes, LIMITS);
    expect(codes(result)).toContain('ZIP_INVALID');
    expect(result).toMatchObject({ valid: false, revision: null, canonical: null, uploadSize: bytes.length });
  });

  it('counts the real bytes when a header under-declares the size', async () => {
    const lying = (declaredSize: number, method: 'deflate' | 'store'): Buffer =>
      buildZip([SKILL_MD, { path: 's/big.bin', data: Buffer.alloc(5000, 7), declaredSize, method }]);
    const small = { ...LIMITS, maxFileBytes: 1000 };
    const cases = [
      inspectPackage(lying(10, 'deflate'), small),
      inspectPackage(lying(10, 'store'), small),
      inspectPackage(lying(10, 'deflate'), LIMITS),
      inspectPackage(lying(9000, 'deflate'), LIMITS),
    ];
    expect(cases.map(codes)).toEqual([['ZIP_ENTRY_TOO_LARGE'], ['ZIP_INVALID'], ['ZIP_INVALID'], ['ZIP_INVALID']]);
    expect(cases[2].errors[0].message).toContain('holds 5000 bytes but its header declares 10');
  });
});

describe('inspectPackage: limits', () => {
  const incompressible = randomBytes(200 * 1024);

  it.each<[string, ZipEntryInput[], Partial<PackageLimits>, ProblemCode[], string | null]>([
    [
      'more entries than allowed, directories included',
      [SKILL_MD, { path: 's/a' }, { path: 's/d/', directory: true }],
      { maxEntries: 2 },
      ['ZIP_TOO_MANY_ENTRIES'],
      null,
    ],
    [
      'exactly as many entries as allowed',
      [SKILL_MD, { path: 's/a' }, { path: 's/d/', directory: true }],
      { maxEntries: 3 },
      [],
      null,
    ],
    [
      'a file one byte over the file limit',
      [SKILL_MD, { path: 's/f', data: Buffer.alloc(1001) }],
      { maxFileBytes: 1000 },
      ['ZIP_ENTRY_TOO_LARGE'],
      's/f',
    ],
    [
      'a file exactly at the file limit',
      [SKILL_MD, { path: 's/f', data: Buffer.alloc(1000) }],
      { maxFileBytes: 1000 },
      [],
      null,
    ],
    [
      'files that together pass the expanded limit',
      [SKILL_MD, { path: 's/a', data: Buffer.alloc(800) }, { path: 's/b', data: Buffer.alloc(800) }],
      { maxExpandedBytes: 1500 },
      ['ZIP_TOO_LARGE_EXPANDED'],
      null,
    ],
    [
      'a whole archive over the compression ratio',
      [SKILL_MD, { path: 's/zeros', data: Buffer.alloc(100_000) }],
      { maxCompressionRatio: 10 },
      ['ZIP_RATIO'],
      null,
    ],
    [
      'one entry over 1 MiB past the ratio',
      [
        SKILL_MD,
        { path: 's/noise', data: incompressible, method: 'store' },
        { path: 's/zeros', data: Buffer.alloc(2 * MiB) },
      ],
      {},
      ['ZIP_RATIO'],
      's/zeros',
    ],
    [
      'one dense entry of exactly 1 MiB',
      [
        SKILL_MD,
        { path: 's/noise', data: incompressible, method: 'store' },
        { path: 's/zeros', data: Buffer.alloc(MiB) },
      ],
      {},
      [],
      null,
    ],
    [
      'ignored entries, which are never stored and so never expanded',
      [SKILL_MD, { path: '__MACOSX/s/._big', data: Buffer.alloc(2000) }],
      { maxFileBytes: 1000 },
      [],
      null,
    ],
  ])('%s', async (_title, entries, limits, expected, field) => {
    const result = inspectPackage(buildZip(entries), { ...LIMITS, ...limits });
    expect(codes(result)).toEqual(expected);
    if (field !== null) expect(result.errors[0].field).toBe(field);
  });

  it('tells the whole-archive ratio from the per-entry one', async () => {
    const result = inspectPackage(buildZip([SKILL_MD, { path: 's/zeros', data: Buffer.alloc(100_000) }]), {
      ...LIMITS,
      maxCompressionRatio: 10,
    });
    expect(result.errors[0].message).toContain('archive expands more than 10 times its own size');
  });

  it('still reports the SKILL.md problems and earlier ones when a limit stops the reading', async () => {
    const result = inspectPackage(
      buildZip([
        { path: 's/link', mode: 0o120777 },
        { path: 's/big', data: Buffer.alloc(5000) },
        { path: 's/SKILL.md', data: '---\nname: s\n---\n' },
      ]),
      { ...LIMITS, maxFileBytes: 1000 },
    );
    expect(codes(result)).toEqual(['ZIP_SYMLINK', 'DESCRIPTION_MISSING', 'ZIP_ENTRY_TOO_LARGE']);
  });

  it('rejects a 200 MB zip bomb without expanding it, in bounded memory', async () => {
    const bomb = buildZip([SKILL_MD, { path: 's/zeros.bin', data: Buffer.alloc(200 * MiB) }]);
    expect(bomb.length).toBeLessThan(LIMITS.maxPackageBytes);

    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 1);
    const result = inspectPackage(bomb, LIMITS);
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());

    expect(codes(result)).toHaveLength(1);
    expect(['ZIP_ENTRY_TOO_LARGE', 'ZIP_RATIO']).toContain(codes(result)[0]);
    expect(result.errors[0].field).toBe('s/zeros.bin');
    expect(rssPeak - rssBefore).toBeLessThan(100 * MiB);
  });

  it('accepts a package of many small files within every limit', async () => {
    const files = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`refs/file-${i}.md`, `# File ${i}\n`]));
    const result = inspectPackage(skillZip('many-files', { files }), LIMITS);
    expect(result.errors).toEqual([]);
    expect(result.files).toHaveLength(301);
  });
});

describe('inspectPackage: archives that would read differently elsewhere', () => {
  it.each(hostileZips('trick').map((c) => [c.title, c] as const))('%s', async (_title, hostile) => {
    const result = inspectPackage(hostile.zip, LIMITS);
    expect(codes(result)).toEqual(hostile.codes);
    expect(result.canonical === null).toBe(hostile.codes.length > 0);
  });
});

describe('the stored zip', () => {
  const files = {
    'scripts/run.sh': '#!/bin/sh\necho hi\n',
    'docs/r\u00E9sum\u00E9.md': 'x'.repeat(5000),
    'tiny.txt': 'a',
  };

  it('has the canonical form: one entry per manifest file under <name>/, in manifest order', () => {
    const zip = buildZip([
      { path: 'SKILL.md', data: '---\nname: canon\ndescription: d\n---\n' },
      { path: 'docs/', directory: true },
      ...Object.entries(files).map(([path, data]) => ({
        path,
        data,
        mode: path.endsWith('.sh') ? 0o100755 : 0o100644,
        descriptor: true,
      })),
    ]);
    const result = inspectPackage(zip, LIMITS);
    expect(result.errors).toEqual([]);
    const canonical = result.canonical!;
    const listing = listZip(canonical, LIMITS);
    expect(listing.problems).toEqual([]);
    expect(listing.entries.map((e) => [e.name, e.mode])).toEqual(
      result.files.map((file) => [`canon/${file.path}`, file.mode]),
    );
    // Fixed fields of every central record: Unix host, 1980-01-01, modes, no extra or comment.
    let at = canonical.readUInt32LE(canonical.length - 6);
    for (const entry of listing.entries) {
      expect(canonical.readUInt16LE(at + 4) >> 8).toBe(3);
      expect(canonical.readUInt16LE(at + 8) & 0x8).toBe(0);
      expect(canonical.readUInt16LE(at + 8) & 0x800).toBe(/^[\x20-\x7e]*$/.test(entry.name) ? 0 : 0x800);
      expect([canonical.readUInt16LE(at + 12), canonical.readUInt16LE(at + 14)]).toEqual([0, 0x21]);
      expect([canonical.readUInt16LE(at + 30), canonical.readUInt16LE(at + 32)]).toEqual([0, 0]);
      expect(canonical.readUInt32LE(at + 38) >>> 16).toBe(entry.mode === '755' ? 0o100755 : 0o100644);
      at += 46 + canonical.readUInt16LE(at + 28);
    }
    expect(canonical.readUInt16LE(canonical.length - 2)).toBe(0);
    // Small files are stored, compressible ones deflated.
    expect(listing.entries.find((e) => e.path === 'canon/tiny.txt')?.method).toBe(0);
    expect(listing.entries.find((e) => e.path.endsWith('.md') && e.path.includes('docs'))?.method).toBe(8);
  });

  it('is itself a package that inspects to the same manifest, revision and bytes', () => {
    const first = inspectPackage(skillZip('canon', { files }), LIMITS);
    const again = inspectPackage(first.canonical!, LIMITS);
    expect(again.errors).toEqual([]);
    expect(again.files).toEqual(first.files);
    expect(again.revision).toBe(first.revision);
    expect(again.canonical!.equals(first.canonical!)).toBe(true);
  });
});

describe('the inflate output chunk', () => {
  const MIB = 1024 * 1024;
  it.each<[string, number, number, number]>([
    ['a truthful entry inflates into one buffer', MIB, 10 * MIB, MIB + 1],
    ['an empty entry gets zlib smallest chunk', 0, 10 * MIB, 64],
    ['a header claiming more than the allowance gets the allowance', 4 * 1024 * MIB, 2 * MIB, 2 * MIB + 1],
    ['a large truthful entry is not allocated whole up front', 9 * MIB, 10 * MIB, 8 * MIB + 1],
    ['no allowance left', 1000, 0, 64],
  ])('%s', (_, declared, limit, chunk) => {
    expect(outputChunk(declared, limit)).toBe(chunk);
  });
});
