// Reads one file of a stored (canonical) zip without the archive: the version records where each
// file's compressed data lies (file-offsets.ts), so the caller streams exactly those bytes from the
// store, with one request, and this inflates and checks them on the way. Memory stays at one chunk
// whatever the file's size. Dependency-free.
//
// The stored form is canonical (docs/packages.md#canonical-form): a file is stored when deflating
// does not make it smaller, else deflated. Bytes that break what the manifest says of the file fail
// with StoredZipError instead of being served.
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { createInflateRaw } from 'node:zlib';

export class StoredZipError extends Error {}

const STORED = 0;
const DEFLATED = 8;

export interface ExpectedFile {
  /** Expanded bytes; the data may not produce another number. */
  size: number;
  /** Bare hex sha256 the bytes must have (the manifest's). */
  sha256?: string;
}

/**
 * The expanded bytes of the file whose `compressedSize` bytes of data `source` streams (stored when
 * that equals the file's size, else deflated), checked against `expected`. `name` is for messages.
 */
export function openStoredFile(
  source: Readable,
  name: string,
  compressedSize: number,
  expected: ExpectedFile,
): Readable {
  const method = compressedSize === expected.size ? STORED : DEFLATED;
  return inflateChecked(source, { name, method, size: expected.size }, expected);
}

/** What inflateChecked needs of an entry: its name (for messages), method and expanded size. */
interface EntryShape {
  name: string;
  method: typeof STORED | typeof DEFLATED;
  size: number;
}

/**
 * The expanded bytes of an entry whose compressed data `source` streams, checked on the way (never
 * past `expected.size`; at the end the size and the sha256, before the last piece is passed on). A
 * mismatch ends the stream with StoredZipError.
 */
function inflateChecked(source: Readable, entry: EntryShape, expected: ExpectedFile): Readable {
  let produced = 0;
  const hash = expected.sha256 === undefined ? null : createHash('sha256');
  // The last piece is held back until the checks pass, so damaged bytes never reach a consumer as
  // a complete file (one that knows the length sees a short one).
  let held: Buffer | null = null;
  const check = new Transform({
    transform(data: Buffer, _encoding, callback) {
      produced += data.length;
      if (produced > expected.size) {
        callback(new StoredZipError(`The stored package cannot be read: ${entry.name} expands past its size`));
        return;
      }
      hash?.update(data);
      if (held) this.push(held);
      held = data;
      callback();
    },
    flush(callback) {
      const why =
        produced !== expected.size
          ? `it holds ${produced} bytes, not ${expected.size}`
          : hash && hash.digest('hex') !== expected.sha256
            ? 'its sha256 differs from the manifest'
            : null;
      if (why) {
        callback(new StoredZipError(`The stored package cannot be read: ${entry.name}: ${why}`));
        return;
      }
      if (held) this.push(held);
      callback();
    },
  });
  // Wired by hand rather than with pipeline(), so that what the consumer sees is a StoredZipError
  // for damaged data (zlib's own errors are renamed) and the read error itself otherwise.
  const stages: Readable[] = [source];
  source.on('error', (err) => check.destroy(err));
  if (entry.method === DEFLATED) {
    const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
    inflate.on('error', (err) =>
      check.destroy(new StoredZipError(`The stored package cannot be read: ${entry.name}: ${err.message}`)),
    );
    source.pipe(inflate).pipe(check);
    stages.push(inflate);
  } else {
    source.pipe(check);
  }
  check.on('close', () => {
    for (const stage of stages) stage.destroy();
  });
  return check;
}
