// Reads one file of a stored (canonical) zip without holding the archive: the end record, the
// central directory up to the entry, its local header, then its data as a stream, each through a
// `read(offset, length)` the caller provides (the database reads bounded slices of the blob). Memory
// stays at one chunk plus one directory record whatever the archive's size. Dependency-free.
//
// The stored form is canonical (docs/packages.md#canonical-form), and this reader accepts nothing else: a blob that
// breaks that form, or whose headers disagree with each other or with what the caller expects,
// fails with StoredZipError instead of serving other bytes.
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { crc32, createInflateRaw } from 'node:zlib';

/** Exactly `length` bytes from `offset` (fewer only when the archive ends first). */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

export class StoredZipError extends Error {}

/** Bytes per read, unless the caller says otherwise. */
export const DEFAULT_CHUNK_BYTES = 256 * 1024;

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const END_BYTES = 22;
const CENTRAL_BYTES = 46;
const LOCAL_BYTES = 30;
/** The only flag a canonical entry may carry: UTF-8 names. */
const FLAG_UTF8 = 0x800;
const STORED = 0;
const DEFLATED = 8;

export interface StoredEntry {
  name: string;
  method: typeof STORED | typeof DEFLATED;
  crc32: number;
  compressedSize: number;
  /** Expanded bytes, as the headers state them (the stream checks it). */
  size: number;
  dataStart: number;
  /** The first bytes of the data, read with the local header. */
  head: Buffer;
}

export interface ReaderOptions {
  chunkBytes?: number;
}

function fail(message: string): never {
  throw new StoredZipError(`The stored package cannot be read: ${message}`);
}

async function readExactly(read: ReadAt, offset: number, length: number): Promise<Buffer> {
  if (length === 0) return Buffer.alloc(0);
  const bytes = await read(offset, length);
  if (bytes.length !== length) fail(`it ends before byte ${offset + length}`);
  return bytes;
}

/**
 * The entry named `name` (`<skill>/<path>`, compared byte for byte), or null when the directory has
 * none. `archiveSize` is the stored size of the blob.
 */
export async function findStoredEntry(
  read: ReadAt,
  archiveSize: number,
  name: string,
  options: ReaderOptions = {},
): Promise<StoredEntry | null> {
  const chunk = Math.max(END_BYTES, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  if (!Number.isSafeInteger(archiveSize) || archiveSize < END_BYTES) fail('it is too short to be a zip archive');
  // One read holds the end record and, for most packages, the whole central directory.
  const tailStart = Math.max(0, archiveSize - chunk);
  const tail = await readExactly(read, tailStart, archiveSize - tailStart);
  const end = tail.subarray(tail.length - END_BYTES);
  if (end.readUInt32LE(0) !== SIG_END) fail('it does not end with an end-of-central-directory record');
  const entries = end.readUInt16LE(10);
  const directorySize = end.readUInt32LE(12);
  const directoryStart = end.readUInt32LE(16);
  const directoryEnd = archiveSize - END_BYTES;
  if (end.readUInt16LE(4) !== 0 || end.readUInt16LE(6) !== 0 || end.readUInt16LE(8) !== entries) {
    fail('it spans several disks');
  }
  if (end.readUInt16LE(20) !== 0) fail('its end record has a comment');
  if (directoryStart + directorySize !== directoryEnd) fail('its central directory does not end at its end record');
  if (directorySize < entries * CENTRAL_BYTES) fail('its central directory is too small for its entries');

  const wanted = Buffer.from(name, 'utf8');
  // The unread part of the directory is fetched a chunk at a time; `buffer` starts at `bufferStart`.
  let bufferStart = Math.max(directoryStart, tailStart);
  let buffer = tail.subarray(bufferStart - tailStart, tail.length - END_BYTES);
  if (bufferStart > directoryStart) {
    bufferStart = directoryStart;
    buffer = Buffer.alloc(0);
  }
  let at = directoryStart;
  const ensure = async (bytes: number): Promise<Buffer> => {
    if (at + bytes > directoryEnd) fail('a central directory record runs past the directory');
    while (bufferStart + buffer.length < at + bytes) {
      const from = bufferStart + buffer.length;
      const more = await readExactly(read, from, Math.min(chunk, directoryEnd - from));
      buffer = Buffer.concat([buffer.subarray(at - bufferStart), more]);
      bufferStart = at;
    }
    return buffer.subarray(at - bufferStart, at - bufferStart + bytes);
  };

  for (let i = 0; i < entries; i++) {
    const header = await ensure(CENTRAL_BYTES);
    if (header.readUInt32LE(0) !== SIG_CENTRAL) fail(`central directory record ${i + 1} is damaged`);
    const nameLength = header.readUInt16LE(28);
    if (header.readUInt16LE(30) !== 0 || header.readUInt16LE(32) !== 0) {
      fail(`central directory record ${i + 1} has extra fields or a comment`);
    }
    const record = await ensure(CENTRAL_BYTES + nameLength);
    at += CENTRAL_BYTES + nameLength;
    if (!record.subarray(CENTRAL_BYTES).equals(wanted)) continue;
    // A small archive is whole in the tail: its entry is read from there, not asked for again.
    const fromTail: ReadAt = (offset, length) =>
      offset >= tailStart
        ? Promise.resolve(tail.subarray(offset - tailStart, offset - tailStart + length))
        : read(offset, length);
    return readLocal(fromTail, Buffer.from(record), directoryStart, name, chunk, tailStart);
  }
  if (at !== directoryEnd) fail('its central directory holds more than its end record counts');
  return null;
}

async function readLocal(
  read: ReadAt,
  central: Buffer,
  directoryStart: number,
  name: string,
  chunk: number,
  tailStart: number,
): Promise<StoredEntry> {
  const flags = central.readUInt16LE(8);
  const method = central.readUInt16LE(10);
  const crc = central.readUInt32LE(16);
  const compressedSize = central.readUInt32LE(20);
  const size = central.readUInt32LE(24);
  const nameLength = central.readUInt16LE(28);
  const localOffset = central.readUInt32LE(42);
  if ((flags & ~FLAG_UTF8) !== 0) fail(`the entry ${JSON.stringify(name)} has flags a stored package never sets`);
  if (method !== STORED && method !== DEFLATED) fail(`the entry ${JSON.stringify(name)} uses method ${method}`);
  if (method === STORED && compressedSize !== size) fail(`the stored entry ${JSON.stringify(name)} changes size`);
  const dataStart = localOffset + LOCAL_BYTES + nameLength;
  if (dataStart + compressedSize > directoryStart) fail(`the data of ${JSON.stringify(name)} runs into the directory`);

  // The first data rides along with the header, within one chunk (all of it when already read).
  const room = localOffset >= tailStart ? compressedSize : chunk - LOCAL_BYTES - nameLength;
  const head = Math.max(0, Math.min(compressedSize, room));
  const local = await readExactly(read, localOffset, LOCAL_BYTES + nameLength + head);
  const agrees =
    local.readUInt32LE(0) === SIG_LOCAL &&
    local.readUInt16LE(6) === flags &&
    local.readUInt16LE(8) === method &&
    local.readUInt32LE(14) === crc &&
    local.readUInt32LE(18) === compressedSize &&
    local.readUInt32LE(22) === size &&
    local.readUInt16LE(26) === nameLength &&
    local.readUInt16LE(28) === 0 &&
    local.subarray(LOCAL_BYTES, LOCAL_BYTES + nameLength).equals(central.subarray(CENTRAL_BYTES));
  if (!agrees) fail(`the local header of ${JSON.stringify(name)} disagrees with the central directory`);
  return {
    name,
    method,
    crc32: crc,
    compressedSize,
    size,
    dataStart,
    head: local.subarray(LOCAL_BYTES + nameLength),
  };
}

export interface ExpectedFile {
  /** Expanded bytes; the entry may not state or produce another number. */
  size: number;
  /** Bare hex sha256 the bytes must have (the manifest's). */
  sha256?: string;
}

/**
 * The expanded bytes of `entry`, streamed: compressed data is read a chunk at a time as the consumer
 * asks for more, inflated, and checked on the way (never past `expected.size`; at the end the size,
 * the CRC-32 and the sha256, before the last piece is passed on). A mismatch ends the stream with
 * StoredZipError.
 */
export function openStoredEntry(
  read: ReadAt,
  entry: StoredEntry,
  expected: ExpectedFile,
  options: ReaderOptions = {},
): Readable {
  if (entry.size !== expected.size) {
    fail(`the entry ${JSON.stringify(entry.name)} states ${entry.size} bytes where ${expected.size} are expected`);
  }
  const chunk = Math.max(1, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  async function* compressed(): AsyncGenerator<Buffer> {
    let done = entry.head.length;
    if (done > 0) yield entry.head;
    while (done < entry.compressedSize) {
      const length = Math.min(chunk, entry.compressedSize - done);
      yield await readExactly(read, entry.dataStart + done, length);
      done += length;
    }
  }

  let produced = 0;
  let crc = 0;
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
      crc = crc32(data, crc);
      hash?.update(data);
      if (held) this.push(held);
      held = data;
      callback();
    },
    flush(callback) {
      const why =
        produced !== expected.size
          ? `it holds ${produced} bytes, not ${expected.size}`
          : crc !== entry.crc32
            ? 'it fails its CRC-32 check'
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
  const source = Readable.from(compressed(), { objectMode: false });
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
