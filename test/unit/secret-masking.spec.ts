import { AppLogger, databaseUrlSecrets, maskDatabaseUrl } from '../../src/common/logging/app-logger';
import { configSecrets, loadConfig } from '../../src/config/app-config';

describe('maskDatabaseUrl', () => {
  it.each([
    ['postgresql://app:s3cret@db:5432/skills', 'postgresql://app:****@db:5432/skills'],
    ['postgres://app:s3cret@db/skills?sslmode=require', 'postgres://app:****@db/skills?sslmode=require'],
    ['postgres://app:p%40ss%2Fw%3Ard@db/skills', 'postgres://app:****@db/skills'],
    // Unencoded '@', ':' and '/' in the password: masked whole all the same.
    ['postgres://app:p@ss@db/skills', 'postgres://app:****@db/skills'],
    ['postgres://app:a:b:c@db/skills', 'postgres://app:****@db/skills'],
    ['postgres://app:pa/ss@db/skills', 'postgres://app:****@db/skills'],
    ['postgres://:s3cret@db/skills', 'postgres://:****@db/skills'],
    ['postgres://app:@db/skills', 'postgres://app:****@db/skills'],
    // The query parameter form, any case, with other parameters kept.
    ['postgres://app@db/skills?password=s3cret', 'postgres://app@db/skills?password=****'],
    [
      'postgres://db/skills?user=app&PassWord=s3cret&sslmode=require',
      'postgres://db/skills?user=app&PassWord=****&sslmode=require',
    ],
    [
      'postgres://db/skills?sslmode=verify-full&sslpassword=k3y',
      'postgres://db/skills?sslmode=verify-full&sslpassword=****',
    ],
    ['postgres://app:one@db/skills?password=two', 'postgres://app:****@db/skills?password=****'],
    // Nothing to mask.
    ['postgres://app@db:5432/skills', 'postgres://app@db:5432/skills'],
    ['postgres://db:5432/skills?application_name=a@b', 'postgres://db:5432/skills?application_name=a@b'],
    ['postgresql://postgres@127.0.0.1:5432/postgres', 'postgresql://postgres@127.0.0.1:5432/postgres'],
  ])('%s', (url, masked) => {
    expect(maskDatabaseUrl(url)).toBe(masked);
  });
});

describe('databaseUrlSecrets', () => {
  it.each([
    ['postgres://app:s3cret@db/skills', ['s3cret']],
    ['postgres://app:p%40ss@db/skills', ['p%40ss', 'p@ss']],
    ['postgres://app@db/skills?Password=s3cret&sslpassword=k%3Dy', ['s3cret', 'k%3Dy', 'k=y']],
    ['postgres://app:bad%zz@db/skills', ['bad%zz']],
    ['postgres://app@db/skills', []],
  ])('%s', (url, secrets) => {
    expect([...new Set(databaseUrlSecrets(url))]).toEqual(secrets);
  });
});

describe('the logger never writes a configured secret', () => {
  const password = 'Pa55"w\\ord/@x';
  const url = `postgres://app:${encodeURIComponent(password)}@db/skills?password=Qu3ry-s3cret`;
  const adminKey = 'admin-key-0123456789abcdefghij';

  function logged(format: 'json' | 'text', write: (logger: AppLogger) => void): string {
    const lines: string[] = [];
    const logger = new AppLogger('debug', format, (line) => lines.push(line));
    logger.maskSecrets(configSecrets(loadConfig({ DATABASE_URL: url, ADMIN_API_KEY: adminKey })));
    write(logger);
    return lines.join('\n');
  }

  it.each(['json', 'text'] as const)('in any form it takes (%s lines)', (format) => {
    const out = logged(format, (logger) => {
      logger.write('error', `could not connect with ${password}`, { url, key: adminKey });
      logger.error(new Error(`password authentication failed: ${encodeURIComponent(password)} Qu3ry-s3cret`));
      logger.warn({ header: `Bearer ${adminKey}` });
    });
    for (const secret of [password, encodeURIComponent(password), JSON.stringify(password).slice(1, -1)]) {
      expect(out).not.toContain(secret);
    }
    expect(out).not.toContain('Qu3ry-s3cret');
    expect(out).not.toContain(adminKey);
    expect(out).toContain('could not connect with ****');
  });

  it('keeps lines without secrets as they are', () => {
    expect(logged('json', (logger) => logger.write('info', 'listening', { port: 3000 }))).toMatch(
      /"msg":"listening","port":3000}$/,
    );
  });
});
