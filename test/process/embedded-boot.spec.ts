import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseHolder } from '../../src/database/data-dir-lock';
import { getJson, startService } from '../support/service-process';

describe('the service on its embedded database (real processes)', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sr-boot-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('boots on a fresh folder, serves health and Swagger, writes the first admin key, stops cleanly', async () => {
    const service = startService({ DATA_DIR: dataDir });
    const port = await service.ready;
    expect(await getJson(port, '/api/health/ready')).toEqual({
      status: 200,
      body: { status: 'ok', database: 'up', store: 'up' },
    });
    expect((await fetch(`http://127.0.0.1:${port}/api/docs`)).status).toBe(200);

    const keyFile = join(dataDir, 'admin-api-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    const me = await getJson(port, '/api/users/me', { 'x-api-key': key });
    expect(me).toEqual({ status: 200, body: { id: 1, user_name: 'admin', role: 'admin' } });
    expect(service.lines.join('\n')).toContain(keyFile);
    expect(service.lines.join('\n')).not.toContain(key);
    expect(service.lines.some((l) => l.includes('embedded PostgreSQL'))).toBe(true);

    expect(existsSync(join(dataDir, 'skill-resolver.lock'))).toBe(true);
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(dataDir, 'skill-resolver.lock'))).toBe(false);

    // The data survives a restart (and SIGINT stops it as cleanly).
    const again = startService({ DATA_DIR: dataDir });
    const port2 = await again.ready;
    expect((await getJson(port2, '/api/users/me', { 'x-api-key': key })).status).toBe(200);
    expect(await again.stop('SIGINT')).toBe(0);
  });

  it('makes a new cluster from the build template, replacing what a start that died while unpacking left', async () => {
    // What a start killed while unpacking leaves: a side folder, and a data folder with no cluster.
    mkdirSync(join(dataDir, 'pgdata.partial-12345', 'base'), { recursive: true });
    mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
    writeFileSync(join(dataDir, 'pgdata', 'stray'), 'x');
    const service = startService({ DATA_DIR: dataDir });
    const port = await service.ready;
    expect(service.lines.find((l) => l.includes('embedded PostgreSQL'))).toContain('"made_from":"the build template"');
    expect(existsSync(join(dataDir, 'pgdata.partial-12345'))).toBe(false);
    expect(existsSync(join(dataDir, 'pgdata', 'stray'))).toBe(false);
    expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
    // Every migration is already in the template: nothing is applied at boot.
    expect(service.lines.some((l) => l.includes('"migrations applied"'))).toBe(false);
    expect(await getJson(port, '/api/health/ready')).toEqual({
      status: 200,
      body: { status: 'ok', database: 'up', store: 'up' },
    });
    expect(await service.stop('SIGTERM')).toBe(0);

    const again = startService({ DATA_DIR: dataDir });
    await again.ready;
    expect(again.lines.find((l) => l.includes('embedded PostgreSQL'))).not.toContain('made_from');
    expect(await again.stop('SIGTERM')).toBe(0);
  });

  it('stops with a fatal line when the cluster cannot be opened, leaving the folder unlocked', async () => {
    const first = startService({ DATA_DIR: dataDir });
    await first.ready;
    expect(await first.stop('SIGTERM')).toBe(0);
    // A cluster of another major version: PGlite refuses to open it on its thread.
    writeFileSync(join(dataDir, 'pgdata', 'PG_VERSION'), '9\n');
    const broken = startService({ DATA_DIR: dataDir });
    expect(await broken.exited).toBe(1);
    const fatal = broken.lines.find((l) => l.includes('"level":"fatal"'));
    expect(fatal).toContain('the embedded database failed');
    expect(existsSync(join(dataDir, 'skill-resolver.lock'))).toBe(false);
  });

  it('on a port in use, stops with exit 69 and a line naming PORT, leaving the folder unlocked', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as AddressInfo).port;
    try {
      const service = startService({ DATA_DIR: dataDir, PORT: String(taken), HOST: '127.0.0.1' });
      expect(await service.exited).toBe(69);
      const fatal = service.lines.find((l) => l.includes('"level":"fatal"'));
      expect(JSON.parse(fatal ?? '{}')).toMatchObject({
        msg: `127.0.0.1:${taken} is already in use (another skill-resolver, or another program): set PORT to a free port, e.g. PORT=3001 npm start (HOST sets the address)`,
        port: taken,
        error: 'EADDRINUSE',
      });
      expect(existsSync(join(dataDir, 'skill-resolver.lock'))).toBe(false);
    } finally {
      holder.close();
    }
  });

  it('on Node 20 says once at boot that its line has ended; on 22 and later says nothing of it', async () => {
    const service = startService({ DATA_DIR: dataDir });
    await service.ready;
    const said = service.lines.filter((l) => l.includes('end of life'));
    expect(said).toHaveLength(Number(process.versions.node.split('.')[0]) < 22 ? 1 : 0);
    expect(await service.stop()).toBe(0);
  });

  it('refuses a second process on a folder in use, naming the folder and the holder', async () => {
    const first = startService({ DATA_DIR: dataDir });
    await first.ready;
    const second = startService({ DATA_DIR: dataDir });
    const code = await second.exited;
    expect(code).not.toBe(0);
    const said = second.lines.join('\n');
    expect(said).toContain(dataDir);
    expect(said).toContain(`pid ${first.child.pid}`);
    expect(await first.stop()).toBe(0);
  });

  it('takes over a lock left by a killed process, and says so', async () => {
    const first = startService({ DATA_DIR: dataDir });
    await first.ready;
    await first.stop('SIGKILL');
    expect(parseHolder(readFileSync(join(dataDir, 'skill-resolver.lock'), 'utf8'))?.pid).toBe(first.child.pid);

    const second = startService({ DATA_DIR: dataDir });
    const port = await second.ready;
    expect((await getJson(port, '/api/health/ready')).status).toBe(200);
    const takeover = second.lines.find((l) => l.includes('took over the lock'));
    expect(takeover).toBeDefined();
    expect(JSON.parse(takeover!)).toEqual(
      expect.objectContaining({ previous_pid: first.child.pid, data_dir: dataDir }),
    );
    expect(await second.stop()).toBe(0);
  });
});

describe("the app's modules at boot", () => {
  it('leave the MCP SDK (zod, Ajv) to the first MCP request', () => {
    // A process of its own: this one has loaded whatever the other tests imported.
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'src', 'app.setup.js'))});` +
          'console.log(JSON.stringify(Object.keys(require.cache)))',
      ],
      { encoding: 'utf8' },
    );
    const files: string[] = JSON.parse(loaded);
    expect(files.some((f) => f.includes('app.module'))).toBe(true);
    expect(files.filter((f) => /@modelcontextprotocol|[\\/]zod[\\/]|[\\/]ajv[\\/]|mcp-server/.test(f))).toEqual([]);
  });
});

describe('configuration errors stop the process naming the variable', () => {
  it.each([
    ['PORT', 'seventy'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'mysql://root@localhost/db'],
    ['DB_POOL_SIZE', '0'],
    ['ADMIN_API_KEY', 'short'],
    ['NODE_ENV', 'staging'],
    ['MAX_PACKAGE_BYTES', '-1'],
  ])('%s=%s', async (name, value) => {
    const service = startService({ DATA_DIR: join(tmpdir(), 'sr-never-created'), [name]: value });
    expect(await service.exited).toBe(78);
    expect(service.lines.join('\n')).toContain(name);
    expect(existsSync(join(tmpdir(), 'sr-never-created'))).toBe(false);
  });
});

describe('a .env file in the working directory', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'sr-dotenv-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('is read at boot, and fills only what the environment leaves unset', async () => {
    writeFileSync(join(cwd, '.env'), 'PORT=0\nLOG_LEVEL=loud\nDATA_DIR=./data-from-dotenv\n');
    // The file's value is read: an invalid one stops the boot naming it.
    const fromFile = startService({}, { cwd, defaults: false });
    expect(await fromFile.exited).toBe(78);
    expect(fromFile.lines.join('\n')).toContain('LOG_LEVEL');

    // The environment wins over the file.
    const service = startService({ LOG_LEVEL: 'info' }, { cwd, defaults: false });
    await service.ready;
    expect(service.lines.join('\n')).toContain('settings read from .env');
    expect(existsSync(join(cwd, 'data-from-dotenv', 'pgdata'))).toBe(true);
    expect(await service.stop()).toBe(0);
  });
});
