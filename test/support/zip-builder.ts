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
}

const VERSION_MADE_BY_UNIX = (3 << 8) | 20;
const VERSION_NEEDED = 20;
const UTF8_FLAG = 0x800;
// 2024-01-01 00:00:00 in DOS format: fixed so the same input always gives the same bytes.
const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;

export function buildZip(entries: ZipEntryInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const input of entries) {
    const name = Buffer.from(input.path, 'utf8');
    const data = typeof input.data === 'string' ? Buffer.from(input.data, 'utf8') : (input.data ?? Buffer.alloc(0));
    const method = input.method === 'store' || input.directory ? 0 : 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const flags = UTF8_FLAG | (input.encrypted ? 1 : 0);
    const crc = crc32(data);
    const size = input.declaredSize ?? data.length;
    const mode = input.mode ?? (input.directory ? 0o040755 : 0o100644);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(VERSION_MADE_BY_UNIX, 4);
    central.writeUInt16LE(VERSION_NEEDED, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    // Extra field length, comment length, disk number and internal attributes stay 0.
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
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
