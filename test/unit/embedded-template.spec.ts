import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { unpackTemplate } from '../../src/database/embedded-postgres';

/** One ustar entry: header and data padded to 512-byte blocks. */
function entry(name: string, type: string, data = '', magic = 'ustar'): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'utf8');
  header.write('0000600\0', 100);
  header.write(`${Buffer.byteLength(data).toString(8).padStart(11, '0')}\0`, 124);
  header.write(type, 156);
  header.write(`${magic}\x0000`, 257, 'latin1');
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512);
  body.write(data);
  return Buffer.concat([header, body]);
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

  it.each([
    ['a symbolic link', entry('/link', '2')],
    ['a path out of the folder', entry('/../escape', '0', 'x')],
    ['a header that is not ustar', entry('/old', '0', 'x', 'xxxxx')],
  ])('declines an archive holding %s', (_what, odd) => {
    expect(unpackTemplate(archive(entry('/PG_VERSION', '0', '17\n'), odd), join(dir, 'pgdata'))).toBe(false);
  });
});
