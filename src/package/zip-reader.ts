// Reads a zip archive held in memory, strictly: the end record, the central directory and the
// local headers must tell one story (docs/packages.md#validation), so no extractor can find an entry, a name or a
// size that this reader did not check. Synchronous and dependency-free: it runs in the inspection
// workers and in the sandbox client alike.
import { isUtf8 } from 'node:buffer';
import { crc32, inflateRawSync } from 'node:zlib';
import type { PackageLimits } from './limits';
import { Problem, problem, shown } from './problem';

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
/** 0x06054b50, little-endian: the end-of-central-directory signature. */
const END_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_DESCRIPTOR = 0x08074b50;
const END_BYTES = 22;
const CENTRAL_BYTES = 46;
const LOCAL_BYTES = 30;
const MAX_COMMENT = 0xffff;

const FLAG_ENCRYPTED = 0x1;
const FLAG_DESCRIPTOR = 0x8;
const FLAG_STRONG_ENCRYPTION = 0x40;
const FLAG_UTF8 = 0x800;
const FLAG_MASKED_DIRECTORY = 0x2000;
export const STORED = 0;
export const DEFLATED = 8;
const AES = 99;

const EXTRA_ZIP64 = 0x0001;
const EXTRA_UNICODE_PATH = 0x7075;

const TYPE_MASK = 0o170000;
const TYPE_FILE = 0o100000;
const TYPE_DIRECTORY = 0o040000;
const TYPE_SYMLINK = 0o120000;
const DOS_DIRECTORY = 0x10;
/** Below this an entry is too small for its own ratio to matter; the whole-archive ratio still applies. */
const ENTRY_RATIO_FLOOR = 1024 * 1024;

export type ZipLimits = Pick<
  PackageLimits,
  'maxEntries' | 'maxFileBytes' | 'maxExpandedBytes' | 'maxCompressionRatio' | 'maxPathBytes'
>;

/** One entry as the central directory and its local header, which agree, describe it. */
export interface ZipEntry {
  /** The decoded name, as problems report it. */
  name: string;
  /** `name` without a directory's trailing `/`. */
  path: string;
  directory: boolean;
  mode: '755' | '644';
  /** `__MACOSX/...` and `.DS_Store`: checked like the rest, never part of a skill. */
  ignored: boolean;
  /** The path is well formed, so it can take part in layout checks. */
  pathSafe: boolean;
  /** A regular file with no problem of its own: its data may be read. */
  readable: boolean;
  method: number;
  crc32: number;
  compressedSize: number;
  /** As declared; the real size is counted while inflating. */
  declaredSize: number;
  /** Where the entry's data starts in the archive. */
  dataStart: number;
}

export interface ZipListing {
  /** False when the archive's structure cannot be trusted: then no entry may be read. */
  ok: boolean;
  entries: ZipEntry[];
  problems: Problem[];
}

interface CentralRecord {
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  declaredSize: number;
  localOffset: number;
  versionMadeBy: number;
  externalAttributes: number;
  rawName: Buffer;
  extra: Buffer;
}

class ZipStructureError extends Error {}

function fail(message: string): never {
  throw new ZipStructureError(message);
}

/**
 * The one end record, which must end the archive exactly where its comment ends. A second record
 * that would fit too (one hidden in the comment) makes the archive ambiguous: readers that search
 * from the end and readers that search from the start would pick different ones.
 */
function findEnd(bytes: Buffer): number {
  if (bytes.length < END_BYTES) fail('it is too short to be a zip archive');
  const lowest = Math.max(0, bytes.length - END_BYTES - MAX_COMMENT);
  let found = -1;
  // Native search for the signature: a byte-by-byte scan of the 64 KiB a comment may take costs
  // milliseconds per archive.
  for (let at = bytes.lastIndexOf(END_SIGNATURE, bytes.length - END_BYTES); at >= lowest;) {
    if (at + END_BYTES + bytes.readUInt16LE(at + 20) === bytes.length) {
      if (found >= 0) fail('it has two end-of-central-directory records');
      found = at;
    }
    at = at > 0 ? bytes.lastIndexOf(END_SIGNATURE, at - 1) : -1;
  }
  if (found < 0) fail('it has no end-of-central-directory record at its end');
  return found;
}

function extraFields(extra: Buffer): Map<number, Buffer> {
  const fields = new Map<number, Buffer>();
  let at = 0;
  while (at < extra.length) {
    if (at + 4 > extra.length) fail('an extra field is truncated');
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (at + 4 + size > extra.length) fail('an extra field is truncated');
    if (fields.has(id)) fail(`an extra field (0x${id.toString(16).padStart(4, '0')}) appears twice`);
    fields.set(id, extra.subarray(at + 4, at + 4 + size));
    at += 4 + size;
  }
  return fields;
}

function readCentral(bytes: Buffer, start: number, end: number, count: number): CentralRecord[] {
  const records: CentralRecord[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    if (at + CENTRAL_BYTES > end || bytes.readUInt32LE(at) !== SIG_CENTRAL) {
      fail(`its central directory holds fewer entries than the ${count} its end record counts`);
    }
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const next = at + CENTRAL_BYTES + nameLength + extraLength + commentLength;
    if (next > end) fail('a central directory record runs past the directory');
    if (bytes.readUInt16LE(at + 34) !== 0) fail('an entry is on another disk');
    records.push({
      versionMadeBy: bytes.readUInt16LE(at + 4),
      flags: bytes.readUInt16LE(at + 8),
      method: bytes.readUInt16LE(at + 10),
      crc32: bytes.readUInt32LE(at + 16),
      compressedSize: bytes.readUInt32LE(at + 20),
      declaredSize: bytes.readUInt32LE(at + 24),
      externalAttributes: bytes.readUInt32LE(at + 38),
      localOffset: bytes.readUInt32LE(at + 42),
      rawName: bytes.subarray(at + CENTRAL_BYTES, at + CENTRAL_BYTES + nameLength),
      extra: bytes.subarray(at + CENTRAL_BYTES + nameLength, at + CENTRAL_BYTES + nameLength + extraLength),
    });
    at = next;
  }
  if (at !== end) fail(`its central directory holds more than the ${count} entries its end record counts`);
  return records;
}

/**
 * Checks the local header (and data descriptor) of `record` against it and returns where its data
 * starts and where the whole local record ends.
 */
function readLocal(bytes: Buffer, record: CentralRecord, limit: number): { dataStart: number; end: number } {
  const at = record.localOffset;
  const label = shown(decodeName(record.rawName, record.flags));
  if (at + LOCAL_BYTES > limit || bytes.readUInt32LE(at) !== SIG_LOCAL) fail(`the local header of ${label} is missing`);
  const flags = bytes.readUInt16LE(at + 6);
  const nameLength = bytes.readUInt16LE(at + 26);
  const extraLength = bytes.readUInt16LE(at + 28);
  const dataStart = at + LOCAL_BYTES + nameLength + extraLength;
  if (dataStart > limit) fail(`the local header of ${label} runs into the central directory`);
  const disagrees = (what: string): never =>
    fail(`the local header of ${label} disagrees with the central directory on ${what}`);
  if (flags !== record.flags) disagrees('its flags');
  if (bytes.readUInt16LE(at + 8) !== record.method) disagrees('its compression method');
  if (!bytes.subarray(at + LOCAL_BYTES, at + LOCAL_BYTES + nameLength).equals(record.rawName)) disagrees('its name');
  const localExtra = extraFields(bytes.subarray(at + LOCAL_BYTES + nameLength, dataStart));
  checkExtra(localExtra, record, label);

  const crc = bytes.readUInt32LE(at + 14);
  const compressed = bytes.readUInt32LE(at + 18);
  const size = bytes.readUInt32LE(at + 22);
  let end = dataStart + record.compressedSize;
  if (end > limit) fail(`the data of ${label} runs into the central directory`);
  if ((flags & FLAG_DESCRIPTOR) === 0) {
    if (crc !== record.crc32 || compressed !== record.compressedSize || size !== record.declaredSize) {
      disagrees('its sizes or CRC-32');
    }
    return { dataStart, end };
  }
  // A data descriptor follows the data; the local header then holds zeros (or the same values).
  const zeroOrSame = (local: number, central: number): boolean => local === 0 || local === central;
  if (!zeroOrSame(crc, record.crc32) || !zeroOrSame(compressed, record.compressedSize)) {
    disagrees('its sizes or CRC-32');
  }
  if (!zeroOrSame(size, record.declaredSize)) disagrees('its sizes or CRC-32');
  if (end + 4 <= limit && bytes.readUInt32LE(end) === SIG_DESCRIPTOR) end += 4;
  if (end + 12 > limit) fail(`the data descriptor of ${label} is missing`);
  if (
    bytes.readUInt32LE(end) !== record.crc32 ||
    bytes.readUInt32LE(end + 4) !== record.compressedSize ||
    bytes.readUInt32LE(end + 8) !== record.declaredSize
  ) {
    fail(`the data descriptor of ${label} disagrees with the central directory`);
  }
  return { dataStart, end: end + 12 };
}

/** Extra fields that would make some extractor read another name or another size. */
function checkExtra(fields: Map<number, Buffer>, record: CentralRecord, label: string): void {
  if (fields.has(EXTRA_ZIP64)) fail(`${label} carries ZIP64 sizes, which are not supported`);
  const unicode = fields.get(EXTRA_UNICODE_PATH);
  if (unicode) {
    const name = unicode.subarray(5);
    const agrees =
      unicode.length >= 5 &&
      unicode[0] === 1 &&
      isUtf8(name) &&
      name.toString('utf8') === decodeName(record.rawName, record.flags);
    if (!agrees) fail(`${label} has a Unicode path field naming another path`);
  }
}

/**
 * Names without the UTF-8 flag are CP437 by the spec, but most tools write UTF-8 without setting
 * it: valid UTF-8 is read as UTF-8, as most extractors do. The stored (canonical) archive then
 * sets the flag, so every extractor reads the name shown here.
 */
function decodeName(raw: Buffer, flags: number): string {
  if ((flags & FLAG_UTF8) !== 0 || isUtf8(raw)) return raw.toString('utf8');
  return raw.toString('latin1');
}

/**
 * The whole structure, strictly: one end record at the very end, the central directory right
 * before it holding exactly the entries counted, and local records that tile the archive from its
 * first byte to the directory with no gap, overlap or hidden entry.
 */
export function listZip(bytes: Buffer, limits: ZipLimits): ZipListing {
  let records: CentralRecord[];
  let cdStart: number;
  try {
    const end = findEnd(bytes);
    if (end >= 20 && bytes.readUInt32LE(end - 20) === SIG_ZIP64_LOCATOR) fail('ZIP64 archives are not supported');
    const disk = bytes.readUInt16LE(end + 4);
    const cdDisk = bytes.readUInt16LE(end + 6);
    const onDisk = bytes.readUInt16LE(end + 8);
    const total = bytes.readUInt16LE(end + 10);
    const cdSize = bytes.readUInt32LE(end + 12);
    cdStart = bytes.readUInt32LE(end + 16);
    if (disk !== 0 || cdDisk !== 0 || onDisk !== total) fail('it spans several disks');
    if (total > limits.maxEntries) {
      const message = `The archive has ${total} entries; at most ${limits.maxEntries} are allowed.`;
      return { ok: false, entries: [], problems: [problem('ZIP_TOO_MANY_ENTRIES', message)] };
    }
    if (cdStart + cdSize !== end) fail('its central directory does not end where its end record begins');
    records = readCentral(bytes, cdStart, end, total);
  } catch (err) {
    return { ok: false, entries: [], problems: [structureProblem(err)] };
  }

  const entries: ZipEntry[] = [];
  const problems: Problem[] = [];
  try {
    const spans: Array<{ start: number; end: number; label: string }> = [];
    for (const record of records) {
      checkExtra(extraFields(record.extra), record, shown(decodeName(record.rawName, record.flags)));
      const local = readLocal(bytes, record, cdStart);
      spans.push({ start: record.localOffset, end: local.end, label: decodeName(record.rawName, record.flags) });
      const { entry, issues } = describeEntry(record, local.dataStart, limits);
      entries.push(entry);
      problems.push(...issues);
    }
    spans.sort((a, b) => a.start - b.start);
    let expected = 0;
    for (const span of spans) {
      if (span.start < expected) fail(`the entry ${shown(span.label)} overlaps the data of another entry`);
      if (span.start > expected) fail(`it holds ${span.start - expected} bytes that no entry accounts for`);
      expected = span.end;
    }
    if (expected !== cdStart) fail(`it holds ${cdStart - expected} bytes that no entry accounts for`);
  } catch (err) {
    return { ok: false, entries, problems: [...problems, structureProblem(err)] };
  }
  problems.push(...duplicateProblems(entries));
  return { ok: true, entries, problems };
}

function structureProblem(err: unknown): Problem {
  if (err instanceof ZipStructureError) return problem('ZIP_INVALID', `The archive cannot be trusted: ${err.message}.`);
  throw err;
}

function describeEntry(
  record: CentralRecord,
  dataStart: number,
  limits: ZipLimits,
): { entry: ZipEntry; issues: Problem[] } {
  const issues: Problem[] = [];
  const { rawName, flags } = record;
  const name = decodeName(rawName, flags);
  const directory = name.endsWith('/');
  const path = directory ? name.slice(0, -1) : name;
  const reason = (flags & FLAG_UTF8) !== 0 && !isUtf8(rawName) ? 'is not valid UTF-8' : unsafeReason(name, limits);
  if (reason) issues.push(problem('ZIP_UNSAFE_PATH', `The entry ${shown(name)} ${reason}.`, name));

  // Extractors read the high attribute bytes as a Unix mode for many hosts besides Unix (Info-ZIP
  // for Atari, BeOS, AtheOS and more), so they are read as one whatever the "made by" host says.
  const unixMode = record.externalAttributes >>> 16;
  const type = unixMode & TYPE_MASK;
  if (type === TYPE_SYMLINK) {
    issues.push(problem('ZIP_SYMLINK', `The entry ${shown(name)} is a symbolic link.`, name));
  } else if (type !== 0 && type !== TYPE_FILE && type !== TYPE_DIRECTORY) {
    const message = `The entry ${shown(name)} is a special file (device, FIFO or socket).`;
    issues.push(problem('ZIP_UNSAFE_PATH', message, name));
  } else if ((type === TYPE_DIRECTORY || (record.externalAttributes & DOS_DIRECTORY) !== 0) && !directory) {
    // Extractors disagree on whether the name or the attributes win, so the two must agree.
    const message = `The entry ${shown(name)} is marked as a folder but its name does not end with "/".`;
    issues.push(problem('ZIP_INVALID', message, name));
  } else if (type === TYPE_FILE && directory) {
    const message = `The entry ${shown(name)} is marked as a file but its name ends with "/".`;
    issues.push(problem('ZIP_INVALID', message, name));
  }
  if ((flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) !== 0 || record.method === AES) {
    issues.push(problem('ZIP_ENCRYPTED', `The entry ${shown(name)} is encrypted.`, name));
  } else if ((flags & FLAG_MASKED_DIRECTORY) !== 0) {
    issues.push(problem('ZIP_INVALID', `The entry ${shown(name)} uses a masked central directory.`, name));
  } else if (record.method !== STORED && record.method !== DEFLATED) {
    const message = `The entry ${shown(name)} uses compression method ${record.method}; only stored and deflated entries are supported.`;
    issues.push(problem('ZIP_INVALID', message, name));
  } else if (record.method === STORED && record.compressedSize !== record.declaredSize) {
    const message = `The stored entry ${shown(name)} declares ${record.declaredSize} bytes but holds ${record.compressedSize}.`;
    issues.push(problem('ZIP_INVALID', message, name));
  } else if (directory && (record.declaredSize !== 0 || record.compressedSize > 2)) {
    issues.push(problem('ZIP_INVALID', `The folder entry ${shown(name)} holds data.`, name));
  }

  const segments = path.split('/');
  const entry: ZipEntry = {
    name,
    path,
    directory,
    mode: (unixMode & 0o111) !== 0 ? '755' : '644',
    ignored: segments[0] === '__MACOSX' || segments[segments.length - 1] === '.DS_Store',
    pathSafe: reason === null,
    readable: !directory && issues.length === 0,
    method: record.method,
    crc32: record.crc32,
    compressedSize: record.compressedSize,
    declaredSize: record.declaredSize,
    dataStart,
  };
  return { entry, issues };
}

/**
 * Characters that make a path look like another one: C0 and C1 controls, bidirectional marks and
 * overrides, zero-width characters and the byte order mark.
 */
// eslint-disable-next-line no-control-regex
const DECEPTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/u;

/** Why a name is unsafe as a path (docs/packages.md#validation), or null; shared with the sandbox client's unpacking. */
export function unsafeReason(name: string, limits: Pick<ZipLimits, 'maxPathBytes'>): string | null {
  if (name === '') return 'has an empty name';
  if (Buffer.byteLength(name, 'utf8') > limits.maxPathBytes)
    return `has a path longer than ${limits.maxPathBytes} bytes`;
  if (name.includes('\\')) return 'contains a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  const deceptive = DECEPTIVE.exec(name);
  if (deceptive) {
    const code = deceptive[0].codePointAt(0)!;
    const what = code < 0xa0 ? 'a control character' : 'an invisible or bidirectional character';
    return `contains ${what} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  if (/[\ud800-\udfff]/.test(name.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return 'is not valid Unicode';
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  if (segments.includes('..')) return 'has a ".." segment';
  if (segments.includes('.')) return 'has a "." segment';
  if (segments.includes('')) return 'has an empty path segment';
  return null;
}

/**
 * Full Unicode case folding, near enough: NFC, then upper and lower case, so that `σ`/`ς`/`Σ`,
 * `ß`/`SS` and `ﬁ`/`FI` collide as they do on case-insensitive file systems.
 */
export function foldPath(path: string): string {
  return path.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

/** Case-insensitive file systems would merge these, and a path cannot be a file and a folder at once. */
function duplicateProblems(entries: ZipEntry[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, ZipEntry>();
  for (const entry of entries) {
    if (!entry.pathSafe) continue;
    const key = foldPath(entry.path);
    const first = seen.get(key);
    if (first) {
      const message = `The entries ${shown(first.name)} and ${shown(entry.name)} name the same path when case is ignored.`;
      problems.push(problem('ZIP_DUPLICATE_PATH', message, entry.name));
    } else {
      seen.set(key, entry);
    }
  }
  const reported = new Set<string>();
  for (const entry of entries) {
    if (!entry.pathSafe) continue;
    const segments = entry.path.split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      const key = foldPath(segments.slice(0, depth).join('/'));
      const file = seen.get(key);
      if (file && !file.directory && !reported.has(key)) {
        reported.add(key);
        const message = `The entry ${shown(file.name)} is a file but ${shown(entry.name)} uses it as a folder.`;
        problems.push(problem('ZIP_DUPLICATE_PATH', message, file.name));
      }
    }
  }
  return problems;
}

/** Shared across the entries of one archive: the expansion limits are for the whole archive. */
export class ExpansionBudget {
  private expanded = 0;

  constructor(
    private readonly archiveBytes: number,
    private readonly limits: ZipLimits,
  ) {}

  /** The most bytes `entry` may expand to before some limit is passed. */
  allowance(entry: ZipEntry): number {
    const { maxFileBytes, maxExpandedBytes, maxCompressionRatio } = this.limits;
    return Math.max(
      0,
      Math.min(
        maxFileBytes,
        maxExpandedBytes - this.expanded,
        maxCompressionRatio * this.archiveBytes - this.expanded,
        Math.max(ENTRY_RATIO_FLOOR, maxCompressionRatio * entry.compressedSize),
      ),
    );
  }

  /** The problem of an entry that expanded past its allowance. */
  overrun(entry: ZipEntry): Problem {
    const { maxFileBytes, maxExpandedBytes, maxCompressionRatio } = this.limits;
    const name = shown(entry.name);
    const allowance = this.allowance(entry);
    if (allowance === maxFileBytes) {
      const message = `The file ${name} expands to more than ${maxFileBytes} bytes, the limit for one file.`;
      return problem('ZIP_ENTRY_TOO_LARGE', message, entry.name);
    }
    if (allowance === maxExpandedBytes - this.expanded) {
      const message = `The archive expands to more than ${maxExpandedBytes} bytes, the limit for a package.`;
      return problem('ZIP_TOO_LARGE_EXPANDED', message, entry.name);
    }
    if (allowance === maxCompressionRatio * this.archiveBytes - this.expanded) {
      const message = `The archive expands more than ${maxCompressionRatio} times its own size.`;
      return problem('ZIP_RATIO', message, entry.name);
    }
    const message = `The file ${name} expands more than ${maxCompressionRatio} times its compressed size.`;
    return problem('ZIP_RATIO', message, entry.name);
  }

  spend(bytes: number): void {
    this.expanded += bytes;
  }
}

export type ReadResult =
  | { ok: true; data: Buffer }
  /** `stop` when a limit was passed: no further entry should be read. */
  | { ok: false; problem: Problem; stop: boolean };

/** zlib's smallest output chunk, and the largest one allocated before any output exists. */
const MIN_CHUNK = 64;
const MAX_FIRST_CHUNK = 8 * 1024 * 1024;

/**
 * The output chunk for an entry that declares `declared` bytes: one more than it declares, so a
 * truthful entry inflates into a single buffer (zlib's default 16 KiB chunks cost about three times
 * as long for a 1 MiB file, in copies), never more than the allowance or MAX_FIRST_CHUNK up front,
 * whatever a header claims.
 */
export function outputChunk(declared: number, limit: number): number {
  return Math.max(MIN_CHUNK, Math.min(declared, limit, MAX_FIRST_CHUNK) + 1);
}

/**
 * Inflates one entry, never past its allowance (`cap` lowers it further, e.g. for SKILL.md), and
 * checks what came out against the headers: the size, the CRC-32, and that the deflate stream
 * ends exactly where the entry's data does (bytes after it are how streaming readers get fooled).
 */
export function readEntry(
  bytes: Buffer,
  entry: ZipEntry,
  budget: ExpansionBudget,
  cap?: { bytes: number; problem: () => Problem },
): ReadResult {
  const damaged = (why: string): ReadResult => ({
    ok: false,
    problem: problem('ZIP_INVALID', `The entry ${shown(entry.name)} ${why}.`, entry.name),
    stop: false,
  });
  const allowance = budget.allowance(entry);
  const capped = cap !== undefined && cap.bytes < allowance;
  const limit = capped ? cap.bytes : allowance;
  const raw = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  let data: Buffer;
  if (entry.method === STORED) {
    data = raw;
    if (data.length > limit)
      return { ok: false, problem: capped ? cap.problem() : budget.overrun(entry), stop: !capped };
  } else {
    try {
      const result = inflateRawSync(raw, {
        maxOutputLength: Math.max(1, limit),
        chunkSize: outputChunk(entry.declaredSize, limit),
        info: true,
      }) as unknown as {
        buffer: Buffer;
        engine: { bytesWritten: number };
      };
      data = result.buffer;
      if (result.engine.bytesWritten !== raw.length) {
        return damaged(`holds ${raw.length - result.engine.bytesWritten} bytes after its compressed data`);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        return { ok: false, problem: capped ? cap.problem() : budget.overrun(entry), stop: !capped };
      }
      return damaged(`cannot be decompressed: ${(err as Error).message}`);
    }
    if (limit === 0 && data.length > 0) return { ok: false, problem: budget.overrun(entry), stop: true };
  }
  budget.spend(data.length);
  if (data.length !== entry.declaredSize) {
    return damaged(`holds ${data.length} bytes but its header declares ${entry.declaredSize}`);
  }
  if (crc32(data) !== entry.crc32) return damaged('fails its CRC-32 check');
  return { ok: true, data };
}
