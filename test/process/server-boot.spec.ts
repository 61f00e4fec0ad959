import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyServerDatabase, isServerMode, TestDatabase, withClient } from '../support/database';
import { getJson, startService } from '../support/service-process';
import { MIGRATIONS } from '../../migrations';

// These need a PostgreSQL server: they run when TEST_DATABASE_URL is set (as .ci/run does).
const onServer = isServerMode() ? describe : describe.skip;

onServer('the service on a PostgreSQL server (real processes)', () => {
  let db: TestDatabase;
  let dataDir: string;
  beforeEach(async () => {
    db = await emptyServerDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'sr-server-'));
  });
  afterEach(async () => {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('two replicas booting at once on an empty database run each migration once', async () => {
    const url = new URL(db.url);
    url.password = 'never-logged';
    const env = { DATABASE_URL: url.toString(), DATA_DIR: dataDir, ADMIN_API_KEY: 'replica-admin-key-0123456789' };
    const a = startService(env);
    const b = startService(env);
    const [portA, portB] = await Promise.all([a.ready, b.ready]);
    for (const port of [portA, portB]) {
      expect(await getJson(port, '/api/health/ready')).toEqual({
        status: 200,
        body: { status: 'ok', database: 'up', store: 'up' },
      });
      expect((await getJson(port, '/api/users/me', { 'x-api-key': env.ADMIN_API_KEY })).status).toBe(200);
    }
    const rows = await withClient(db.url, (c) => c.query('SELECT name FROM typeorm_migrations ORDER BY id'));
    expect(rows.rows.map((r: { name: string }) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    const applied = [...a.lines, ...b.lines].filter((l) => l.includes('"migrations applied"'));
    expect(applied).toHaveLength(1);

    const logs = [...a.lines, ...b.lines].join('\n');
    expect(logs).toContain('PostgreSQL server');
    expect(logs).not.toContain('never-logged');
    expect(logs).not.toContain(env.ADMIN_API_KEY);
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
  });
});
