import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { AppLogger } from '../../src/common/logging/app-logger';
import { loadConfig } from '../../src/config/app-config';
import { freshDatabase, TestDatabase } from '../support/database';

describe('the first admin', () => {
  let db: TestDatabase;
  let dataDir: string;
  beforeEach(async () => {
    db = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'sr-admin-'));
  });
  afterEach(async () => {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function boot(env: Record<string, string>) {
    const logs: string[] = [];
    const config = loadConfig({ DATA_DIR: dataDir, ...env });
    const app = await createApp(config, {
      databaseUrl: db.url,
      logger: new AppLogger('info', 'json', (l) => logs.push(l)),
    });
    return { app, logs, http: request(app.getHttpServer()) };
  }

  /** The boot's warnings that no admin key is at hand, as parsed log lines. */
  function lostKeyWarnings(logs: string[]): Array<Record<string, unknown>> {
    return logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.level === 'warn' && String(entry.msg).startsWith('ADMIN_API_KEY is unset'));
  }

  it('ADMIN_API_KEY is upserted at every boot; changing it retires the old key', async () => {
    const keyA = 'first-admin-key-aaaaaaaaaaaaaaaa';
    const keyB = 'second-admin-key-bbbbbbbbbbbbbbbb';
    const one = await boot({ ADMIN_API_KEY: keyA });
    expect((await one.http.get('/api/users/me').set('x-api-key', keyA)).body).toEqual({
      id: 1,
      user_name: 'admin',
      role: 'admin',
    });
    await one.app.close();

    const two = await boot({ ADMIN_API_KEY: keyB });
    expect((await two.http.get('/api/users/me').set('x-api-key', keyB)).status).toBe(200);
    expect((await two.http.get('/api/users/me').set('x-api-key', keyA)).status).toBe(401);
    expect(two.logs.join('\n')).not.toContain(keyB);
    await two.app.close();

    // Booting again with the same key changes nothing and keeps it working.
    const three = await boot({ ADMIN_API_KEY: keyB });
    expect((await three.http.get('/api/users/me').set('x-api-key', keyB)).body.id).toBe(1);
    await three.app.close();
    expect(existsSync(join(dataDir, 'admin-api-key'))).toBe(false);
  });

  it('without ADMIN_API_KEY an empty database gets a generated key in a 0600 file, logged by path only', async () => {
    const one = await boot({});
    const file = join(dataDir, 'admin-api-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8').trim();
    expect(key).toMatch(/^srk_/);
    expect((await one.http.get('/api/users/me').set('x-api-key', key)).body.role).toBe('admin');
    const logs = one.logs.join('\n');
    expect(logs).toContain(file);
    expect(logs).not.toContain(key);
    expect(lostKeyWarnings(one.logs)).toEqual([]);
    await one.app.close();

    // A database that has users gets no new key.
    rmSync(file);
    const two = await boot({});
    expect(existsSync(file)).toBe(false);
    expect((await two.http.get('/api/users/me').set('x-api-key', key)).status).toBe(200);
    await two.app.close();
  });

  it('a kept database with no ADMIN_API_KEY and no working key file says, once, how to get the admin back', async () => {
    const first = await boot({});
    const file = join(dataDir, 'admin-api-key');
    const generated = readFileSync(file, 'utf8').trim();
    await first.app.close();

    // The key file is there and its key works: nothing to say.
    const kept = await boot({});
    expect(lostKeyWarnings(kept.logs)).toEqual([]);
    await kept.app.close();

    // The data folder was lost, the database kept.
    rmSync(file);
    const lost = await boot({});
    const [warning, ...more] = lostKeyWarnings(lost.logs);
    expect(more).toEqual([]);
    expect(warning).toEqual(expect.objectContaining({ user_name: 'admin', key_file: file }));
    expect(warning.msg).toContain('set ADMIN_API_KEY');
    expect(warning.msg).toContain('restart');
    expect(lost.logs.join('\n')).not.toContain(generated);
    await lost.app.close();

    // Recovery as the warning says: the key is installed on the kept database and the old one retired.
    const recovered = 'recovered-admin-key-cccccccccccccccc';
    const fixed = await boot({ ADMIN_API_KEY: recovered });
    expect((await fixed.http.get('/api/users/me').set('x-api-key', recovered)).body).toEqual({
      id: 1,
      user_name: 'admin',
      role: 'admin',
    });
    expect((await fixed.http.get('/api/users/me').set('x-api-key', generated)).status).toBe(401);
    expect(lostKeyWarnings(fixed.logs)).toEqual([]);
    expect(fixed.logs.join('\n')).not.toContain(recovered);
    await fixed.app.close();

    // A key file whose key was retired does not count as a way in.
    writeFileSync(file, generated + '\n', { mode: 0o600 });
    const stale = await boot({});
    expect(lostKeyWarnings(stale.logs)).toHaveLength(1);
    expect(stale.logs.join('\n')).not.toContain(generated);
    await stale.app.close();
  });
});
