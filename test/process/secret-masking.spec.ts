// Secrets of the configuration never reach a log line (docs/operations.md#logs): the service as a real process,
// with passwords in DATABASE_URL in either form (userinfo, `?password=`), booting or failing to.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyServerDatabase, isServerMode, TestDatabase } from '../support/database';
import { getJson, startService } from '../support/service-process';

const ADMIN_API_KEY = 'masking-admin-key-0123456789abcdef';

function expectNoSecret(lines: string[], secrets: string[]): void {
  const all = lines.join('\n');
  for (const secret of secrets) {
    for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]) {
      expect(all).not.toContain(form);
    }
  }
}

describe('secrets in the configuration are masked in every log line', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sr-mask-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  // Nothing listens on port 1: the boot fails after its retries, logging the driver's errors.
  it.each([
    [
      'userinfo and query parameter',
      'Us3r-pa55word',
      'postgresql://app:Us3r-pa55word@127.0.0.1:1/db?PASSWORD=Qu3ry-pa55word',
      ['Qu3ry-pa55word'],
    ],
    [
      'characters that need encoding',
      'p@ss:w/rd"x',
      `postgres://app:${encodeURIComponent('p@ss:w/rd"x')}@127.0.0.1:1/db`,
      [],
    ],
    ['an unencoded slash the driver cannot parse', 'pa/ss-word', 'postgres://app:pa/ss-word@127.0.0.1:1/db', []],
    ['broken percent-encoding', 'S3cret%zz', 'postgres://app:S3cret%zz@127.0.0.1:1/db', []],
  ])('a boot that fails: %s', async (_, password, url, more) => {
    const service = startService({ DATA_DIR: dataDir, DATABASE_URL: url, LOG_LEVEL: 'debug', ADMIN_API_KEY });
    expect(await service.exited).toBe(1);
    expect(service.lines.join('\n')).toContain('boot failed');
    expect(service.lines.join('\n')).toContain('database: PostgreSQL server');
    expectNoSecret(service.lines, [password, ...more, ADMIN_API_KEY]);
  });

  const onServer = isServerMode() ? describe : describe.skip;
  onServer('on a PostgreSQL server (trust authentication ignores the passwords)', () => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await emptyServerDatabase();
    });
    afterEach(async () => db.drop());

    it('a boot that succeeds, serves and stops', async () => {
      const url = new URL(db.url);
      url.password = 'Us3r-pa55word';
      url.searchParams.set('password', 'Qu3ry-pa55word');
      const service = startService({
        DATA_DIR: dataDir,
        DATABASE_URL: url.toString(),
        LOG_LEVEL: 'debug',
        ADMIN_API_KEY,
      });
      const port = await service.ready;
      expect((await getJson(port, '/api/health/ready')).status).toBe(200);
      expect((await getJson(port, '/api/users/me', { 'x-api-key': ADMIN_API_KEY })).status).toBe(200);
      expect(await service.stop()).toBe(0);
      expect(service.lines.find((l) => l.includes('database: PostgreSQL server'))).toContain(':****@');
      expectNoSecret(service.lines, ['Us3r-pa55word', 'Qu3ry-pa55word', ADMIN_API_KEY]);
    });
  });
});
