import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { unpackTemplate, withoutZeroTail } from '../../src/database/embedded-postgres';

/** One ustar entry: header and data padded to 512-byte blocks. */
function entry(name: string, type: string, data: string | Buffer = '', magic = 'ustar'): Buffer {
  const bytes = Buffer.from(data);
  const header = Buffer.alloc(512);
  header.write(name, 0, 'utf8');
  header.write('0000600\0', 100);
  header.write(`${bytes.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write(type, 156);
  header.write(`${magic}\x0000`, 257, 'latin1');
  const body = Buffer.alloc(Math.ceil(bytes.length / 512) * 512);
  bytes.copy(body);
  return Buffer.concat([header, body]);
}

const PAGE = 8192;
/** `size` bytes, zero but for 1 at each offset in `ones`. */
function bytesWith(size: number, ...ones: number[]): Buffer {
  const data = Buffer.alloc(size);
  for (const at of ones) data[at] = 1;
  return data;
}

const archive = (...entries: Buffer[]): Buffer => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

describe('unpackTemplate (the embedded cluster from its build-time dump)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sr-template-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes directories and files under the folder, owner-only', () => {
    const ok = unpackTemplate(
      archive(entry('/global', '5'), entry('/global/pg_control', '0', 'control'), entry('/PG_VERSION', '0', '17\n')),
      join(dir, 'pgdata'),
    );
    expect(ok).toBe(true);
    expect(readFileSync(join(dir, 'pgdata', 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readFileSync(join(dir, 'pgdata', 'global', 'pg_control'), 'utf8')).toBe('control');
    expect(statSync(join(dir, 'pgdata', 'global', 'pg_control')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'pgdata', 'global')).mode & 0o777).toBe(0o700);
  });

  it('writes a trailing run of zero pages as a hole, and reading it gives the same bytes', () => {
    const wal = bytesWith(256 * PAGE, 0, PAGE + 5);
    expect(unpackTemplate(archive(entry('/pg_wal/000000010000000000000001', '0', wal)), join(dir, 'pgdata'))).toBe(
      true,
    );
    const path = join(dir, 'pgdata', 'pg_wal', '000000010000000000000001');
    expect(readFileSync(path).equals(wal)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Two pages written, the rest a hole (blocks of 512 bytes; a file system without holes allocates them all).
    expect(statSync(path).blocks * 512).toBeLessThanOrEqual(wal.length);
  });

  it.each([
    ['empty', bytesWith(0), 0],
    ['all zero pages', bytesWith(3 * PAGE), 0],
    ['data in the first page only', bytesWith(3 * PAGE, 10), PAGE],
    ['data in the last page', bytesWith(3 * PAGE, 3 * PAGE - 1), 3 * PAGE],
    ['data in the middle page', bytesWith(3 * PAGE, PAGE), 2 * PAGE],
    ['a partial last page with data', bytesWith(PAGE + 100, PAGE + 99), PAGE + 100],
    ['a partial last page of zeros', bytesWith(PAGE + 100, 0), PAGE + 100],
    ['shorter than a page', bytesWith(100), 100],
  ])('keeps the bytes before the trailing zero pages: %s', (_what, data, kept) => {
    expect(withoutZeroTail(data)).toBe(kept);
  });

  it.each([
    ['a symbolic link', entry('/link', '2')],
    ['a path out of the folder', entry('/../escape', '0', 'x')],
    ['a header that is not ustar', entry('/old', '0', 'x', 'xxxxx')],
  ])('declines an archive holding %s', (_what, odd) => {
    expect(unpackTemplate(archive(entry('/PG_VERSION', '0', '17\n'), odd), join(dir, 'pgdata'))).toBe(false);
  });
});
