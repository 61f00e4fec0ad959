// A small zip writer for tests: valid archives by default, and the lies and oddities a hostile upload may carry.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntryInput {
  path: string;
  /** Default empty. */
  data?: Buffer | string;
  /** A directory entry (the path should end with '/'). */
  directory?: boolean;
  /** Full Unix mode including type bits; default 0o100644, or 0o040755 for directories. */
  mode?: number;
  /** Default 'deflate'. */
  method?: 'deflate' | 'store';
  /** Sets general purpose bit 0; the data is not really encrypted. */
  encrypted?: boolean;
  /** Lies about the uncompressed size in both headers. */
  declaredSize?: number;
  /** The "version made by" host (high byte); default 3, Unix. */
  host?: number;
  /** Extra fields of the central record and of the local header. */
  centralExtra?: Buffer;
  localExtra?: Buffer;
  /** Sizes and CRC after the data (general purpose bit 3), with zeros in the local header. */
  descriptor?: boolean;
  /** Bytes placed after the compressed data and counted in the compressed size. */
  trailing?: Buffer;
  /** Values only the local header states, disagreeing with the central directory. */
  localOverride?: { compressedSize?: number; size?: number; crc?: number; name?: string };
  /** The raw name bytes, when they should not be the UTF-8 of `path`. */
  rawName?: Buffer;
  /** Sets the UTF-8 flag; default true. */
  utf8Flag?: boolean;
  /** Present only as a local header: streaming readers see it, the central directory does not. */
  localOnly?: boolean;
}

export interface ZipLayout {
  /** Bytes before the first local header (a self-extractor stub). */
  prefix?: Buffer;
  /** The end record's comment. */
  comment?: Buffer;
  /** The entry count the end record states. */
  count?: number;
}

const VERSION_NEEDED = 20;
const UTF8_FLAG = 0x800;
// 2024-01-01 00:00:00 in DOS format: fixed so the same input always gives the same bytes.
const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;

/** An extra field record: id, size, data. */
export function extraField(id: number, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(id, 0);
  head.writeUInt16LE(data.length, 2);
  return Buffer.concat([head, data]);
}

/** An Info-ZIP Unicode path field (0x7075) naming `unicodeName` for the raw name `raw`. */
export function unicodePathField(raw: string, unicodeName: string): Buffer {
  const head = Buffer.alloc(5);
  head[0] = 1;
  head.writeUInt32LE(crc32(Buffer.from(raw, 'utf8')), 1);
  return extraField(0x7075, Buffer.concat([head, Buffer.from(unicodeName, 'utf8')]));
}

export function buildZip(entries: ZipEntryInput[], layout: ZipLayout = {}): Buffer {
  const parts: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  let counted = 0;
  if (layout.prefix) {
    parts.push(layout.prefix);
    offset += layout.prefix.length;
  }
  for (const input of entries) {
    const name = input.rawName ?? Buffer.from(input.path, 'utf8');
    const data = typeof input.data === 'string' ? Buffer.from(input.data, 'utf8') : (input.data ?? Buffer.alloc(0));
    const method = input.method === 'store' || input.directory ? 0 : 8;
    const body = Buffer.concat([method === 8 ? deflateRawSync(data) : data, input.trailing ?? Buffer.alloc(0)]);
    const flags = (input.utf8Flag === false ? 0 : UTF8_FLAG) | (input.encrypted ? 1 : 0) | (input.descriptor ? 0x8 : 0);
    const crc = crc32(data);
    const size = input.declaredSize ?? data.length;
    const mode = input.mode ?? (input.directory ? 0o040755 : 0o100644);
    const localExtra = input.localExtra ?? Buffer.alloc(0);
    const centralExtra = input.centralExtra ?? Buffer.alloc(0);
    const over = input.localOverride ?? {};
    const localName = over.name !== undefined ? Buffer.from(over.name, 'utf8') : name;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(input.descriptor ? 0 : (over.crc ?? crc), 14);
    local.writeUInt32LE(input.descriptor ? 0 : (over.compressedSize ?? body.length), 18);
    local.writeUInt32LE(input.descriptor ? 0 : (over.size ?? size), 22);
    local.writeUInt16LE(localName.length, 26);
    local.writeUInt16LE(localExtra.length, 28);
    parts.push(local, localName, localExtra, body);
    let recordLength = local.length + localName.length + localExtra.length + body.length;
    if (input.descriptor) {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(body.length, 8);
      descriptor.writeUInt32LE(size, 12);
      parts.push(descriptor);
      recordLength += descriptor.length;
    }

    if (!input.localOnly) {
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(((input.host ?? 3) << 8) | 20, 4);
      central.writeUInt16LE(VERSION_NEEDED, 6);
      central.writeUInt16LE(flags, 8);
      central.writeUInt16LE(method, 10);
      central.writeUInt16LE(DOS_TIME, 12);
      central.writeUInt16LE(DOS_DATE, 14);
      central.writeUInt32LE(crc, 16);
      central.writeUInt32LE(body.length, 20);
      central.writeUInt32LE(size, 24);
      central.writeUInt16LE(name.length, 28);
      central.writeUInt16LE(centralExtra.length, 30);
      // Comment length, disk number and internal attributes stay 0.
      central.writeUInt32LE((mode << 16) >>> 0, 38);
      central.writeUInt32LE(offset, 42);
      centrals.push(central, name, centralExtra);
      counted++;
    }
    offset += recordLength;
  }
  const directory = Buffer.concat(centrals);
  const comment = layout.comment ?? Buffer.alloc(0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(layout.count ?? counted, 8);
  end.writeUInt16LE(layout.count ?? counted, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...parts, directory, end, comment]);
}

export interface SkillZipOptions {
  /** Default 'A test skill.' */
  description?: string;
  /** The raw YAML between the --- lines; overrides name and description. */
  frontmatter?: string;
  /** Markdown after the frontmatter; default '# Skill\n'. */
  body?: string;
  /** Extra files relative to the skill root. */
  files?: Record<string, Buffer | string>;
  /** SKILL.md at the archive root instead of <name>/SKILL.md. */
  atRoot?: boolean;
}

/** A valid package by default: SKILL.md (then `files`) under `<name>/`, no directory entries. */
export function skillZip(name: string, options: SkillZipOptions = {}): Buffer {
  const description = options.description ?? 'A test skill.';
  // JSON strings are valid YAML double-quoted scalars, so any name or description survives.
  const frontmatter =
    options.frontmatter ?? `name: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}`;
  const skillMd = `---\n${frontmatter}\n---\n${options.body ?? '# Skill\n'}`;
  const prefix = options.atRoot ? '' : `${name}/`;
  const files = Object.entries(options.files ?? {}).map(([path, data]) => ({ path: prefix + path, data }));
  return buildZip([{ path: `${prefix}SKILL.md`, data: skillMd }, ...files]);
}
