// The stored form of a package (docs/packages.md#canonical-form): rebuilt from the accepted files, so every extractor
// unpacks exactly the manifest. One entry per file, named `<skill>/<path>`, in manifest order, no
// folders, Unix modes, a fixed timestamp, no extra fields, descriptors or comment.
import { crc32, deflateRawSync } from 'node:zlib';
import { DEFLATED, STORED } from './zip-reader';

export interface CanonicalFile {
  /** Relative to the skill root. */
  path: string;
  mode: '755' | '644';
  data: Buffer;
}

/** One file as the writer lays it down: its body already compressed (or stored) and checksummed. */
export interface CanonicalEntry {
  /** Relative to the skill root. */
  path: string;
  mode: '755' | '644';
  method: typeof STORED | typeof DEFLATED;
  crc32: number;
  /** Expanded bytes. */
  size: number;
  /** The bytes written after the local header: deflated, or the file itself when stored. */
  body: Buffer;
}

const VERSION_MADE_BY_UNIX = (3 << 8) | 20;
const VERSION_NEEDED = 20;
const FLAG_UTF8 = 0x800;
/** 1980-01-01 00:00:00, the earliest DOS timestamp. */
const DOS_TIME = 0;
const DOS_DATE = (1 << 5) | 1;
/** zlib's default: fixed, so the same files give the same bytes on the same zlib. */
const DEFLATE_LEVEL = 6;
const MODE_BITS = { '755': 0o100755, '644': 0o100644 } as const;

/** `files` in manifest order (sorted by UTF-8 bytes of the path). */
export function buildCanonicalZip(skillName: string, files: CanonicalFile[]): Buffer {
  return writeCanonicalZip(`${skillName}/`, files.map(compressCanonical));
}

/** Deflated at the fixed level, or stored when that is not smaller. */
export function compressCanonical(file: CanonicalFile): CanonicalEntry {
  const deflated = deflateRawSync(file.data, { level: DEFLATE_LEVEL });
  const stored = deflated.length >= file.data.length;
  return {
    path: file.path,
    mode: file.mode,
    method: stored ? STORED : DEFLATED,
    crc32: crc32(file.data),
    size: file.data.length,
    body: stored ? file.data : deflated,
  };
}

/**
 * The archive of `entries` in their order, each named `prefix + path`: `<skill>/` for the stored
 * form, `''` for an archive with SKILL.md at its root (docs/well-known.md#archives). Every byte
 * follows from the entries, so the same entries always give the same archive.
 */
export function writeCanonicalZip(prefix: string, entries: CanonicalEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const fullName = `${prefix}${entry.path}`;
    const name = Buffer.from(fullName, 'utf8');
    const flags = /^[\x20-\x7e]*$/.test(fullName) ? 0 : FLAG_UTF8;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(entry.crc32, 14);
    local.writeUInt32LE(entry.body.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    parts.push(local, name, entry.body);

    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(VERSION_MADE_BY_UNIX, 4);
    header.writeUInt16LE(VERSION_NEEDED, 6);
    header.writeUInt16LE(flags, 8);
    header.writeUInt16LE(entry.method, 10);
    header.writeUInt16LE(DOS_TIME, 12);
    header.writeUInt16LE(DOS_DATE, 14);
    header.writeUInt32LE(entry.crc32, 16);
    header.writeUInt32LE(entry.body.length, 20);
    header.writeUInt32LE(entry.size, 24);
    header.writeUInt16LE(name.length, 28);
    // Extra field, comment, disk number and internal attributes: all zero.
    header.writeUInt32LE((MODE_BITS[entry.mode] << 16) >>> 0, 38);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    offset += local.length + name.length + entry.body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}
