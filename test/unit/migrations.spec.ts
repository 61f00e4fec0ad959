import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from '../../migrations';

describe('migrations', () => {
  it('every migration file is listed, in timestamp order', () => {
    const files = readdirSync(join(__dirname, '..', '..', 'migrations'))
      .filter((f) => /^\d+-.+\.ts$/.test(f))
      .sort();
    const listed = MIGRATIONS.map((m) => m.name);
    expect(listed).toHaveLength(files.length);
    const stamps = files.map((f) => f.split('-')[0]);
    expect(listed.map((name) => /\d+$/.exec(name)![0])).toEqual(stamps);
  });
});
