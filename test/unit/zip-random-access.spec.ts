// The random-access reader of stored packages: every entry of a canonical zip read back through
// bounded reads, and stored blobs that lie in each way the reader must notice.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32, deflateRawSync } from 'node:zlib';
import { buildCanonicalZip, CanonicalFile } from '../../src/package/canonical-zip';
import {
  findStoredEntry,
  openStoredEntry,
  ReadAt,
  StoredEntry,
  StoredZipError,
} from '../../src/package/zip-random-access';

interface Reader {
  read: ReadAt;
  calls: Array<{ offset: number; length: number }>;
}

function reader(bytes: Buffer): Reader {
  const calls: Reader['calls'] = [];
  return {
    calls,
    read: (offset, length) => {
      calls.push({ offset, length });
      return Promise.resolve(Buffer.from(bytes.subarray(offset, offset + length)));
    },
  };
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

const FILES: CanonicalFile[] = [
  { path: 'SKILL.md', mode: '644', data: Buffer.from('---\nname: tool\ndescription: d\n---\n# Tool\n') },
  { path: 'data/blob.bin', mode: '644', data: randomBytes(5000) }, // incompressible: stored
  { path: 'docs/résumé.md', mode: '644', data: Buffer.from('é'.repeat(3000)) }, // deflated, non-ASCII name
  { path: 'empty.txt', mode: '644', data: Buffer.alloc(0) },
  { path: 'scripts/run.sh', mode: '755', data: Buffer.from('#!/bin/sh\necho run\n'.repeat(200)) },
];
const ZIP = buildCanonicalZip('tool', FILES);

async function readFile(bytes: Buffer, name: string, file: CanonicalFile, chunkBytes?: number): Promise<Buffer> {
  const { read } = reader(bytes);
  const entry = await findStoredEntry(read, bytes.length, name, { chunkBytes });
  if (!entry) throw new Error(`${name} not found`);
  return collect(openStoredEntry(read, entry, { size: file.data.length, sha256: sha256(file.data) }, { chunkBytes }));
}

/** Offsets of the structures of a canonical zip, to make it lie. */
function layout(bytes: Buffer): { end: number; directory: number; central: number[]; local: number[] } {
  const end = bytes.length - 22;
  const directory = bytes.readUInt32LE(end + 16);
  const central: number[] = [];
  const local: number[] = [];
  for (let at = directory, i = 0; i < bytes.readUInt16LE(end + 10); i++) {
    central.push(at);
    local.push(bytes.readUInt32LE(at + 42));
    at += 46 + bytes.readUInt16LE(at + 28);
  }
  return { end, directory, central, local };
}

function patched(patch: (bytes: Buffer, at: ReturnType<typeof layout>) => void, source = ZIP): Buffer {
  const bytes = Buffer.from(source);
  patch(bytes, layout(bytes));
  return bytes;
}

async function failure(bytes: Buffer, index = 4, archiveSize = bytes.length, name = `tool/${FILES[index].path}`) {
  const file = FILES[index];
  const { read } = reader(bytes);
  try {
    const entry = await findStoredEntry(read, archiveSize, name, { chunkBytes: 64 });
    if (!entry) return 'not found';
    await collect(openStoredEntry(read, entry, { size: file.data.length, sha256: sha256(file.data) }));
    return 'read';
  } catch (err) {
    if (!(err instanceof StoredZipError)) throw err;
    return 'StoredZipError';
  }
}

describe('random access to stored packages', () => {
  it.each([undefined, 22, 64, 1000, 4096])('reads every entry back exactly (chunks of %s bytes)', async (chunk) => {
    for (const file of FILES) {
      expect(await readFile(ZIP, `tool/${file.path}`, file, chunk)).toEqual(file.data);
    }
  });

  it('reads a package smaller than one chunk once', async () => {
    for (const file of FILES) {
      const { read, calls } = reader(ZIP);
      const entry = (await findStoredEntry(read, ZIP.length, `tool/${file.path}`))!;
      expect(sha256(await collect(openStoredEntry(read, entry, { size: file.data.length })))).toBe(sha256(file.data));
      expect(calls).toEqual([{ offset: 0, length: ZIP.length }]);
    }
  });

  it('answers null for names the archive does not hold, compared byte for byte', async () => {
    const { read } = reader(ZIP);
    for (const name of [
      'tool/skill.md',
      'tool/SKILL',
      'tool/docs',
      'tool/docs/',
      'SKILL.md',
      'tool/docs/résumé.md'.normalize('NFD'),
    ]) {
      expect(await findStoredEntry(read, ZIP.length, name)).toBeNull();
    }
  });

  it('reads a 1 MiB file in bounded reads, pulling data only as the consumer reads', async () => {
    const big: CanonicalFile = { path: 'big.bin', mode: '644', data: randomBytes(1024 * 1024) };
    const text: CanonicalFile = { path: 'big.txt', mode: '644', data: Buffer.from('line of text\n'.repeat(90_000)) };
    const zip = buildCanonicalZip('tool', [FILES[0], big, text]);
    const chunk = 64 * 1024;
    for (const file of [big, text]) {
      const { read, calls } = reader(zip);
      const entry = (await findStoredEntry(read, zip.length, `tool/${file.path}`, { chunkBytes: chunk }))!;
      const stream = openStoredEntry(
        read,
        entry,
        { size: file.data.length, sha256: sha256(file.data) },
        { chunkBytes: chunk },
      );
      const before = calls.length;
      expect(before).toBeLessThanOrEqual(3); // the tail with the directory, then the local header with the first data
      // Compared by hash: element-wise equality of megabyte buffers is slow in the test runner.
      expect(sha256(await collect(stream))).toBe(sha256(file.data));
      expect(calls.every((c) => c.length <= chunk)).toBe(true);
      const total = calls.reduce((sum, c) => sum + c.length, 0);
      expect(total).toBeLessThan(entry.compressedSize + 2 * chunk);
      if (entry.compressedSize > chunk) expect(calls.length).toBeGreaterThan(before);
    }
  });

  it('reads a directory larger than one chunk', async () => {
    const many: CanonicalFile[] = Array.from({ length: 300 }, (_, i) => ({
      path: `refs/${String(i).padStart(3, '0')}-${'x'.repeat(40)}.md`,
      mode: '644' as const,
      data: Buffer.from(`file ${i}\n`),
    }));
    const zip = buildCanonicalZip('tool', [FILES[0], ...many]);
    const last = many[many.length - 1];
    expect(await readFile(zip, `tool/${last.path}`, last, 1024)).toEqual(last.data);
  });

  describe('a stored blob that lies', () => {
    it.each<[string, () => Buffer]>([
      ['is too short', () => ZIP.subarray(0, 10)],
      ['has no end record at its end', () => patched((b, at) => b.writeUInt32LE(0, at.end))],
      ['has an end record with a comment', () => patched((b, at) => b.writeUInt16LE(5, at.end + 20))],
      ['spans disks', () => patched((b, at) => b.writeUInt16LE(1, at.end + 4))],
      ['moves its directory', () => patched((b, at) => b.writeUInt32LE(at.directory + 1, at.end + 16))],
      [
        'counts fewer entries than it holds',
        () =>
          patched((b, at) => {
            b.writeUInt16LE(at.central.length - 1, at.end + 8);
            b.writeUInt16LE(at.central.length - 1, at.end + 10);
          }),
      ],
      ['has a directory record with a damaged signature', () => patched((b, at) => b.writeUInt32LE(0, at.central[1]))],
      ['has a name running past the directory', () => patched((b, at) => b.writeUInt16LE(60000, at.central[1] + 28))],
      ['has a directory record with an extra field', () => patched((b, at) => b.writeUInt16LE(4, at.central[0] + 30))],
      ['has a directory record with a comment', () => patched((b, at) => b.writeUInt16LE(4, at.central[0] + 32))],
      ['sets a data-descriptor flag', () => patched((b, at) => b.writeUInt16LE(0x8, at.central[4] + 8))],
      ['uses another method', () => patched((b, at) => b.writeUInt16LE(12, at.central[4] + 10))],
      ['points at the wrong local header', () => patched((b, at) => b.writeUInt32LE(at.local[3], at.central[4] + 42))],
      ['has a local header with another CRC', () => patched((b, at) => b.writeUInt32LE(1, at.local[4] + 14))],
      ['has a local header with another size', () => patched((b, at) => b.writeUInt32LE(1, at.local[4] + 22))],
      ['has a local header with another name', () => patched((b, at) => (b[at.local[4] + 30 + 5] ^= 0x20))],
      ['has a local header with an extra field', () => patched((b, at) => b.writeUInt16LE(2, at.local[4] + 28))],
      [
        'has data running into the directory',
        () =>
          patched((b, at) => {
            b.writeUInt32LE(at.directory, at.central[4] + 20);
            b.writeUInt32LE(at.directory, at.local[4] + 18);
          }),
      ],
      [
        'has damaged compressed data',
        () =>
          patched((b, at) => {
            const data = at.local[4] + 30 + b.readUInt16LE(at.local[4] + 26);
            b.fill(0xff, data, data + 8);
          }),
      ],
    ])('fails with StoredZipError when it %s', async (_what, make) => {
      expect(await failure(make())).toBe('StoredZipError');
    });

    it('counts more entries than it holds (found past the real ones)', async () => {
      const bytes = patched((b, at) => {
        b.writeUInt16LE(at.central.length + 1, at.end + 8);
        b.writeUInt16LE(at.central.length + 1, at.end + 10);
      });
      expect(await failure(bytes, 4, bytes.length, 'tool/missing.md')).toBe('StoredZipError');
      expect(await failure(ZIP, 4, ZIP.length, 'tool/missing.md')).toBe('not found');
    });

    it('holds stored data that fails its CRC-32', async () => {
      const bytes = patched((b, at) => (b[at.local[1] + 30 + b.readUInt16LE(at.local[1] + 26) + 10] ^= 1));
      const { read } = reader(bytes);
      const entry = (await findStoredEntry(read, bytes.length, 'tool/data/blob.bin'))!;
      await expect(collect(openStoredEntry(read, entry, { size: 5000 }))).rejects.toThrow(/CRC-32/);
    });

    it('is shorter than its recorded size', async () => {
      expect(await failure(ZIP, 4, ZIP.length + 100)).toBe('StoredZipError');
    });

    it('answers more bytes than were asked for', async () => {
      const read: ReadAt = (offset, length) => Promise.resolve(Buffer.alloc(length + 1));
      await expect(findStoredEntry(read, ZIP.length, 'tool/SKILL.md')).rejects.toBeInstanceOf(StoredZipError);
    });

    it('states another size than the manifest', async () => {
      const { read } = reader(ZIP);
      const entry = (await findStoredEntry(read, ZIP.length, 'tool/SKILL.md'))!;
      expect(() => openStoredEntry(read, entry, { size: entry.size + 1 })).toThrow(StoredZipError);
    });

    it('holds other bytes than the manifest names (same size and CRC): the last piece is never passed on', async () => {
      for (const index of [0, 1, 4]) {
        const { read } = reader(ZIP);
        const entry = (await findStoredEntry(read, ZIP.length, `tool/${FILES[index].path}`, { chunkBytes: 1024 }))!;
        const stream = openStoredEntry(read, entry, { size: entry.size, sha256: '0'.repeat(64) }, { chunkBytes: 1024 });
        let passed = 0;
        stream.on('data', (chunk: Buffer) => (passed += chunk.length));
        await expect(collect(stream)).rejects.toBeInstanceOf(StoredZipError);
        expect(passed).toBeLessThan(entry.size);
      }
    });

    it('inflates past its stated size: the stream stops there, having passed on no more', async () => {
      // 64 MiB of zeros deflate to about 64 KiB; the headers claim 100 bytes.
      const huge = deflateRawSync(Buffer.alloc(64 * 1024 * 1024));
      const name = Buffer.from('tool/bomb.txt');
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(8, 8);
      local.writeUInt32LE(crc32(Buffer.alloc(100)), 14);
      local.writeUInt32LE(huge.length, 18);
      local.writeUInt32LE(100, 22);
      local.writeUInt16LE(name.length, 26);
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      local.copy(central, 6, 4, 30); // version, flags, method, time, date, crc, sizes, name length
      central.writeUInt16LE(0, 30);
      central.writeUInt32LE(0, 42);
      const end = Buffer.alloc(22);
      end.writeUInt32LE(0x06054b50, 0);
      end.writeUInt16LE(1, 8);
      end.writeUInt16LE(1, 10);
      end.writeUInt32LE(46 + name.length, 12);
      end.writeUInt32LE(30 + name.length + huge.length, 16);
      const zip = Buffer.concat([local, name, huge, central, name, end]);
      const { read } = reader(zip);
      const entry = (await findStoredEntry(read, zip.length, 'tool/bomb.txt'))!;
      expect(entry).toEqual(expect.objectContaining({ size: 100, method: 8 }));
      let passed = 0;
      const stream = openStoredEntry(read, entry, { size: 100 }, { chunkBytes: 4096 });
      stream.on('data', (chunk: Buffer) => (passed += chunk.length));
      await expect(collect(stream)).rejects.toBeInstanceOf(StoredZipError);
      expect(passed).toBeLessThanOrEqual(100);
    });
  });

  it('describes the entry it found', async () => {
    const { read } = reader(ZIP);
    const entry = (await findStoredEntry(read, ZIP.length, 'tool/data/blob.bin')) as StoredEntry;
    expect(entry).toEqual(
      expect.objectContaining({ name: 'tool/data/blob.bin', method: 0, size: 5000, compressedSize: 5000 }),
    );
    expect(entry.crc32).toBe(crc32(FILES[1].data));
  });
});
