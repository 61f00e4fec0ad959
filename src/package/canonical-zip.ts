// The stored form of a package (docs/packages.md#canonical-form): rebuilt from the accepted files, so every extractor
// unpacks exactly the manifest. One entry per file, named `<skill>/<path>`, in manifest order, no
// folders, Unix modes, a fixed timestamp, no extra fields, descriptors or comment.
import { crc32, deflateRawSync } from 'node:zlib';

export interface CanonicalFile {
  /** Relative to the skill root. */
  path: string;
  mode: '755' | '644';
  data: Buffer;
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
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(`${skillName}/${file.path}`, 'utf8');
    const flags = /^[\x20-\x7e]*$/.test(`${skillName}/${file.path}`) ? 0 : FLAG_UTF8;
    const deflated = deflateRawSync(file.data, { level: DEFLATE_LEVEL });
    const stored = deflated.length >= file.data.length;
    const body = stored ? file.data : deflated;
    const method = stored ? 0 : 8;
    const crc = crc32(file.data);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(file.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    parts.push(local, name, body);

    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(VERSION_MADE_BY_UNIX, 4);
    header.writeUInt16LE(VERSION_NEEDED, 6);
    header.writeUInt16LE(flags, 8);
    header.writeUInt16LE(method, 10);
    header.writeUInt16LE(DOS_TIME, 12);
    header.writeUInt16LE(DOS_DATE, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(body.length, 20);
    header.writeUInt32LE(file.data.length, 24);
    header.writeUInt16LE(name.length, 28);
    // Extra field, comment, disk number and internal attributes: all zero.
    header.writeUInt32LE((MODE_BITS[file.mode] << 16) >>> 0, 38);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}
