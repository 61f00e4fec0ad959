// Reads an uploaded zip defensively: central directory checks first, then entry data streamed
// through inflate with every size and ratio limit counted on the real bytes as they come out.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { crc32, createInflateRaw } from 'node:zlib';
import { Entry, LocalFileHeader, ZipFile, fromBufferPromise, getFileNameLowLevel } from 'yauzl';
import { PackageLimits } from '../../config/app-config';
import { Problem, errorText, problem, shown } from './problem';

const UTF8_FLAG = 0x800;
const ENCRYPTED_FLAG = 0x1;
const STORED = 0;
const DEFLATED = 8;
const TYPE_MASK = 0o170000;
const TYPE_FILE = 0o100000;
const TYPE_DIRECTORY = 0o040000;
const TYPE_SYMLINK = 0o120000;
/** Below this an entry is too small for its own ratio to matter; the whole-archive ratio still applies. */
const ENTRY_RATIO_FLOOR = 1024 * 1024;
const LOCAL_HEADER_BYTES = 30;

export interface ZipItem {
  /** The decoded entry name, as problems report it. */
  name: string;
  /** `name` without a directory's trailing `/`. */
  path: string;
  directory: boolean;
  mode: '755' | '644';
  /** `__MACOSX/...` and `.DS_Store`: checked and counted like the rest, but never part of the skill. */
  ignored: boolean;
  /** The path is well formed, so it can take part in layout checks. */
  pathSafe: boolean;
  /** A regular file with no problem of its own: its data may be read. */
  readable: boolean;
  entry: Entry;
}

export interface ZipListing {
  /** Open only when the central directory could be read completely and within limits; close it when done. */
  zip: ZipFile | null;
  items: ZipItem[];
  problems: Problem[];
}

/** Central directory pass: every metadata problem of every entry, nothing inflated yet. */
export async function listZip(bytes: Buffer, limits: PackageLimits): Promise<ZipListing> {
  let zip: ZipFile;
  try {
    zip = await fromBufferPromise(bytes, { decodeStrings: false, validateEntrySizes: false, strictFileNames: true });
  } catch (err) {
    return {
      zip: null,
      items: [],
      problems: [problem('ZIP_INVALID', `Not a readable zip archive: ${errorText(err)}.`)],
    };
  }
  // Nothing that could fail later is allowed to reach the default handler and crash the process.
  zip.on('error', () => undefined);
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    const message = `The archive has ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed.`;
    return { zip: null, items: [], problems: [problem('ZIP_TOO_MANY_ENTRIES', message)] };
  }

  const items: ZipItem[] = [];
  const problems: Problem[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      const { item, issues } = describeEntry(entry, limits);
      items.push(item);
      problems.push(...issues);
    }
  } catch (err) {
    zip.close();
    problems.push(problem('ZIP_INVALID', `The archive's central directory is damaged: ${errorText(err)}.`));
    return { zip: null, items, problems };
  }
  problems.push(...duplicateProblems(items), ...overlapProblems(items));
  return { zip, items, problems };
}

function describeEntry(entry: Entry, limits: PackageLimits): { item: ZipItem; issues: Problem[] } {
  const issues: Problem[] = [];
  const raw = entry.fileNameRaw;
  const flags = entry.generalPurposeBitFlag;
  // Names without the UTF-8 flag are CP437 by the spec, but many Unix tools write UTF-8 without
  // setting it: valid UTF-8 is read as UTF-8, like most extractors do.
  const name = getFileNameLowLevel(isUtf8(raw) ? flags | UTF8_FLAG : flags, raw, entry.extraFields, true);
  const directory = name.endsWith('/');
  const path = directory ? name.slice(0, -1) : name;
  // An Info-ZIP Unicode path field can give the entry a second name that some extractors ignore,
  // so the stored bytes must be as safe as the name read from them.
  const rawReason = unsafeReason(raw.toString('latin1'), Infinity);
  const reason =
    (flags & UTF8_FLAG) !== 0 && !isUtf8(raw)
      ? 'is not valid UTF-8'
      : (unsafeReason(name, limits.maxPathBytes) ?? (rawReason && `${rawReason} in its stored name`));
  if (reason) issues.push(problem('ZIP_UNSAFE_PATH', `The entry ${shown(name)} ${reason}.`, name));

  const madeOn = entry.versionMadeBy >> 8;
  // 3 is Unix, 19 is Darwin; other hosts leave the high attribute bytes meaning something else.
  const unixMode = madeOn === 3 || madeOn === 19 ? entry.externalFileAttributes >>> 16 : 0;
  const type = unixMode & TYPE_MASK;
  if (type === TYPE_SYMLINK) {
    issues.push(problem('ZIP_SYMLINK', `The entry ${shown(name)} is a symbolic link.`, name));
  } else if (type !== 0 && type !== TYPE_FILE && type !== TYPE_DIRECTORY) {
    const message = `The entry ${shown(name)} is a special file (device, FIFO or socket).`;
    issues.push(problem('ZIP_UNSAFE_PATH', message, name));
  } else if (type === TYPE_DIRECTORY && !directory) {
    // Extractors disagree on whether the name or the mode wins, so the two must agree.
    const message = `The entry ${shown(name)} is marked as a folder but its name does not end with "/".`;
    issues.push(problem('ZIP_INVALID', message, name));
  }
  if ((flags & ENCRYPTED_FLAG) !== 0) {
    issues.push(problem('ZIP_ENCRYPTED', `The entry ${shown(name)} is encrypted.`, name));
  } else if (!directory && entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED) {
    const message = `The entry ${shown(name)} uses compression method ${entry.compressionMethod}; only stored and deflated entries are supported.`;
    issues.push(problem('ZIP_INVALID', message, name));
  }

  const segments = path.split('/');
  const item: ZipItem = {
    name,
    path,
    directory,
    mode: (unixMode & 0o111) !== 0 ? '755' : '644',
    ignored: segments[0] === '__MACOSX' || segments[segments.length - 1] === '.DS_Store',
    pathSafe: reason === null,
    readable: !directory && issues.length === 0,
    entry,
  };
  return { item, issues };
}

function unsafeReason(name: string, maxPathBytes: number): string | null {
  if (name === '') return 'has an empty name';
  if (Buffer.byteLength(name, 'utf8') > maxPathBytes) return `has a path longer than ${maxPathBytes} bytes`;
  if (name.includes('\\')) return 'contains a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  for (const char of name) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) return 'contains a control character';
  }
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  if (segments.includes('..')) return 'has a ".." segment';
  if (segments.includes('.')) return 'has a "." segment';
  if (segments.includes('')) return 'has an empty path segment';
  return null;
}

function foldCase(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/** Case-insensitive file systems would merge these, and a path cannot be a file and a folder at once. */
function duplicateProblems(items: ZipItem[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, ZipItem>();
  for (const item of items) {
    if (!item.pathSafe) continue;
    const key = foldCase(item.path);
    const first = seen.get(key);
    if (first) {
      const message = `The entries ${shown(first.name)} and ${shown(item.name)} name the same path when case is ignored.`;
      problems.push(problem('ZIP_DUPLICATE_PATH', message, item.name));
    } else {
      seen.set(key, item);
    }
  }
  const reported = new Set<string>();
  for (const item of items) {
    if (!item.pathSafe) continue;
    const segments = item.path.split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      const key = foldCase(segments.slice(0, depth).join('/'));
      const file = seen.get(key);
      if (file && !file.directory && !reported.has(key)) {
        reported.add(key);
        const message = `The entry ${shown(file.name)} is a file but ${shown(item.name)} uses it as a folder.`;
        problems.push(problem('ZIP_DUPLICATE_PATH', message, file.name));
      }
    }
  }
  return problems;
}

/**
 * Entries sharing compressed data are how the densest zip bombs work, and no honest writer makes
 * them. The span counted here is the least each entry occupies, so real overlaps always show.
 */
function overlapProblems(items: ZipItem[]): Problem[] {
  const spans = items
    .map((item) => {
      const start = item.entry.relativeOffsetOfLocalHeader;
      return { item, start, end: start + LOCAL_HEADER_BYTES + item.entry.fileNameLength + item.entry.compressedSize };
    })
    .sort((a, b) => a.start - b.start);
  const problems: Problem[] = [];
  for (let i = 1; i < spans.length; i++) {
    if (spans[i].start < spans[i - 1].end) {
      const { name } = spans[i].item;
      const message = `The entry ${shown(name)} overlaps the data of ${shown(spans[i - 1].item.name)}.`;
      problems.push(problem('ZIP_INVALID', message, name));
    }
  }
  return problems;
}

/** Shared across the entries of one archive: the expansion limits are for the whole archive. */
export class ExpansionBudget {
  private expanded = 0;

  constructor(
    private readonly archiveBytes: number,
    private readonly limits: PackageLimits,
  ) {}

  /** Counts `chunk` bytes more for `item`; a problem means reading must stop now. */
  spend(item: ZipItem, entryBytes: number, chunk: number): Problem | null {
    const { maxFileBytes, maxExpandedBytes, maxCompressionRatio } = this.limits;
    this.expanded += chunk;
    const name = shown(item.name);
    if (entryBytes > maxFileBytes) {
      const message = `The file ${name} expands to more than ${maxFileBytes} bytes, the limit for one file.`;
      return problem('ZIP_ENTRY_TOO_LARGE', message, item.name);
    }
    if (this.expanded > maxExpandedBytes) {
      const message = `The archive expands to more than ${maxExpandedBytes} bytes, the limit for a package.`;
      return problem('ZIP_TOO_LARGE_EXPANDED', message, item.name);
    }
    if (entryBytes > ENTRY_RATIO_FLOOR && entryBytes > maxCompressionRatio * item.entry.compressedSize) {
      const message = `The file ${name} expands more than ${maxCompressionRatio} times its compressed size.`;
      return problem('ZIP_RATIO', message, item.name);
    }
    if (this.expanded > maxCompressionRatio * this.archiveBytes) {
      const message = `The archive expands more than ${maxCompressionRatio} times its own size.`;
      return problem('ZIP_RATIO', message, item.name);
    }
    return null;
  }
}

export type ReadResult =
  | { ok: true; size: number; sha256: string; data: Buffer | null }
  /** `stop` when a limit was passed: no further entry should be read. */
  | { ok: false; problem: Problem; stop: boolean };

/**
 * Streams one entry's data, hashing it on the way; the bytes are kept only when `keep` is set.
 * Stops inflating the moment a limit is passed, so a bomb costs at most one limit's worth of work.
 */
export async function readItem(
  zip: ZipFile,
  item: ZipItem,
  budget: ExpansionBudget,
  keep: boolean,
): Promise<ReadResult> {
  const { entry, name } = item;
  const damaged = (why: string): ReadResult => ({
    ok: false,
    problem: problem('ZIP_INVALID', `The entry ${shown(name)} ${why}.`, name),
    stop: false,
  });

  let header: LocalFileHeader;
  try {
    header = await zip.readLocalFileHeaderPromise(entry);
  } catch (err) {
    return damaged(`cannot be read: ${errorText(err)}`);
  }
  // Streaming extractors trust local headers: they must say what the central directory says.
  if (
    !header.fileName.equals(entry.fileNameRaw) ||
    header.compressionMethod !== entry.compressionMethod ||
    (header.generalPurposeBitFlag & ENCRYPTED_FLAG) !== 0
  ) {
    return damaged('has a local header that disagrees with the central directory');
  }

  const hash = createHash('sha256');
  const kept: Buffer[] = [];
  let size = 0;
  let crc = 0;
  try {
    const raw = await openRaw(zip, header.fileDataStart, entry.compressedSize);
    const data: Readable =
      entry.compressionMethod === DEFLATED ? pipeline(raw, createInflateRaw(), () => undefined) : raw;
    // Leaving the loop early destroys the stream (and the pipeline the raw stream behind it).
    for await (const chunk of data as AsyncIterable<Buffer>) {
      size += chunk.length;
      const over = budget.spend(item, size, chunk.length);
      if (over) return { ok: false, problem: over, stop: true };
      hash.update(chunk);
      crc = crc32(chunk, crc);
      if (keep) kept.push(chunk);
    }
  } catch (err) {
    return damaged(`cannot be decompressed: ${errorText(err)}`);
  }
  if (size !== entry.uncompressedSize) {
    return damaged(`holds ${size} bytes but its header declares ${entry.uncompressedSize}`);
  }
  if (crc !== entry.crc32) return damaged('fails its CRC-32 check');
  return { ok: true, size, sha256: hash.digest('hex'), data: keep ? Buffer.concat(kept) : null };
}

function openRaw(zip: ZipFile, start: number, length: number): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStreamLowLevel(start, length, 0, length, false, null, (err, stream) =>
      err ? reject(err) : resolve(stream),
    );
  });
}
