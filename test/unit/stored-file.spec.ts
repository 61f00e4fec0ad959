// One file of a stored package, read by the offsets recorded at publish: every file of a canonical
// zip read back from exactly its compressed bytes, the offsets of archives that cannot have them,
// and stored bytes that lie in each way the reader must notice.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { deflateRawSync } from 'node:zlib';
import { buildCanonicalZip, CanonicalFile } from '../../src/package/canonical-zip';
import { FileOffset, fileOffsets } from '../../src/package/file-offsets';
import { inspectPackage } from '../../src/package/inspect-package';
import type { ManifestFile } from '../../src/package/manifest';
import { openStoredFile, StoredZipError } from '../../src/package/zip-random-access';
import { DEFAULT_LIMITS } from '../support/package-limits';

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
const MANIFEST: ManifestFile[] = FILES.map((f) => ({
  path: f.path,
  size: f.data.length,
  sha256: sha256(f.data),
  mode: f.mode,
}));

/** The compressed bytes at `offset`, as one ranged request to the store answers them, in pieces. */
function source(bytes: Buffer, [at, length]: FileOffset, piece = 1000): Readable {
  const slice = bytes.subarray(at, at + length);
  const pieces: Buffer[] = [];
  for (let i = 0; i < slice.length; i += piece) pieces.push(Buffer.from(slice.subarray(i, i + piece)));
  return Readable.from(pieces, { objectMode: false });
}

async function outcome(stream: Readable): Promise<string> {
  try {
    await collect(stream);
    return 'read';
  } catch (err) {
    return err instanceof StoredZipError ? 'StoredZipError' : `other: ${(err as Error).message}`;
  }
}

describe('single files of stored packages, by recorded offsets', () => {
  const offsets = fileOffsets(ZIP, 'tool', MANIFEST)!;

  it('records one offset per file, in manifest order, and each reads its file back exactly', async () => {
    expect(offsets).toHaveLength(FILES.length);
    for (const [i, file] of FILES.entries()) {
      const stream = openStoredFile(source(ZIP, offsets[i]), `tool/${file.path}`, offsets[i][1], MANIFEST[i]);
      expect(await collect(stream)).toEqual(file.data);
    }
    // A stored entry's compressed size is its size; a deflated one's is not.
    expect(offsets[1][1]).toBe(5000);
    expect(offsets[2][1]).toBeLessThan(FILES[2].data.length);
    expect(offsets[3]).toEqual([expect.any(Number), 0]);
  });

  it('are what a publish records', () => {
    const upload = buildCanonicalZip('tool', FILES);
    const inspection = inspectPackage(upload, DEFAULT_LIMITS);
    expect(inspection.errors).toEqual([]);
    expect(inspection.fileOffsets).toEqual(fileOffsets(inspection.canonical!, 'tool', inspection.files));
    expect(inspection.fileOffsets).toEqual(offsets);
  });

  it('reads a 1 MiB file from its offset as the consumer reads, in bounded pieces', async () => {
    const big: CanonicalFile = { path: 'big.txt', mode: '644', data: Buffer.from('line of text\n'.repeat(90_000)) };
    const zip = buildCanonicalZip('tool', [FILES[0], big]);
    const manifest = [MANIFEST[0], { path: big.path, size: big.data.length, sha256: sha256(big.data), mode: big.mode }];
    const [, offset] = fileOffsets(zip, 'tool', manifest)!;
    let pulled = 0;
    const slice = zip.subarray(offset[0], offset[0] + offset[1]);
    const lazy = Readable.from(
      (function* () {
        for (let i = 0; i < slice.length; i += 4096) {
          pulled += 1;
          yield Buffer.from(slice.subarray(i, i + 4096));
        }
      })(),
      { objectMode: false },
    );
    const stream = openStoredFile(lazy, 'tool/big.txt', offset[1], manifest[1]);
    expect(pulled).toBe(0);
    expect(sha256(await collect(stream))).toBe(manifest[1].sha256);
  });

  it.each<[string, () => [Buffer, string, ManifestFile[]]]>([
    ['the archive cannot be read strictly', () => [ZIP.subarray(0, ZIP.length - 1), 'tool', MANIFEST]],
    ['a file of the manifest is not in it', () => [ZIP, 'tool', [...MANIFEST, { ...MANIFEST[0], path: 'more.md' }]]],
    ['the entries are named for another skill', () => [ZIP, 'other', MANIFEST]],
    ['a file has another size than the manifest says', () => [ZIP, 'tool', [{ ...MANIFEST[0], size: 3 }]]],
  ])('are null when %s', (_why, make) => {
    expect(fileOffsets(...make())).toBeNull();
  });

  describe('stored bytes that lie', () => {
    const damaged = (index: number, patch: (slice: Buffer) => void): Readable => {
      const bytes = Buffer.from(ZIP);
      const [at, length] = offsets[index];
      patch(bytes.subarray(at, at + length));
      return source(bytes, offsets[index]);
    };

    it.each<[string, () => Readable, number]>([
      ['damaged deflated data', () => damaged(4, (s) => s.fill(0xff, 0, 8)), 4],
      ['one flipped bit of stored data', () => damaged(1, (s) => (s[10] ^= 1)), 1],
      ['one flipped bit of deflated data', () => damaged(2, (s) => (s[s.length - 3] ^= 1)), 2],
      ['a range that ends early', () => source(ZIP, [offsets[4][0], offsets[4][1] - 5]), 4],
      ['the bytes of another file at the offset', () => source(ZIP, offsets[0]), 4],
    ])('fail with StoredZipError: %s', async (_what, make, index) => {
      const file = MANIFEST[index];
      expect(await outcome(openStoredFile(make(), `tool/${file.path}`, offsets[index][1], file))).toBe(
        'StoredZipError',
      );
    });

    it('holding other bytes than the manifest names, never pass the last piece on', async () => {
      for (const index of [0, 1, 4]) {
        const file = { ...MANIFEST[index], sha256: '0'.repeat(64) };
        const stream = openStoredFile(source(ZIP, offsets[index], 256), `tool/${file.path}`, offsets[index][1], file);
        let passed = 0;
        stream.on('data', (chunk: Buffer) => (passed += chunk.length));
        expect(await outcome(stream)).toBe('StoredZipError');
        expect(passed).toBeLessThan(file.size);
      }
    });

    it('inflating past the size the manifest says: the stream stops there, having passed on no more', async () => {
      // 64 MiB of zeros deflate to about 64 KiB; the manifest says 100 bytes.
      const bomb = deflateRawSync(Buffer.alloc(64 * 1024 * 1024));
      let passed = 0;
      const stream = openStoredFile(source(bomb, [0, bomb.length], 4096), 'tool/bomb.txt', bomb.length, {
        size: 100,
        sha256: sha256(Buffer.alloc(100)),
      });
      stream.on('data', (chunk: Buffer) => (passed += chunk.length));
      expect(await outcome(stream)).toBe('StoredZipError');
      expect(passed).toBeLessThanOrEqual(100);
    });

    it('a store that fails mid-file ends the stream with its error', async () => {
      const failing = Readable.from(
        (async function* () {
          yield Buffer.from(ZIP.subarray(offsets[4][0], offsets[4][0] + 10));
          throw new Error('connection reset');
        })(),
        { objectMode: false },
      );
      expect(await outcome(openStoredFile(failing, 'tool/scripts/run.sh', offsets[4][1], MANIFEST[4]))).toBe(
        'other: connection reset',
      );
    });
  });
});
