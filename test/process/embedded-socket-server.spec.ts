import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';

// PGlite is one session: a named statement one client prepared exists for every client. The
// embedded server runs as the built script (PGlite does not load inside Jest's module system).
describe('embedded socket server: named prepared statements', () => {
  let child: ChildProcess;
  let url: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const script = join(__dirname, '..', '..', 'dist', 'scripts', 'embedded-server.js');
    child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
    for await (const line of createInterface({ input: child.stdout! })) {
      url = (JSON.parse(line) as { url: string }).url;
      break;
    }
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  });

  async function connect(): Promise<Client> {
    const client = new Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  }

  it('lets every client prepare and run the same name', async () => {
    const [a, b] = [await connect(), await connect()];
    const statement = { name: 'plus_one', text: 'SELECT $1::int + 1 AS n' };
    for (let i = 0; i < 3; i++) {
      expect((await a.query({ ...statement, values: [i] })).rows).toEqual([{ n: i + 1 }]);
      expect((await b.query({ ...statement, values: [10 + i] })).rows).toEqual([{ n: 11 + i }]);
    }
    // A third client after both: still answered, and unnamed statements are untouched.
    const c = await connect();
    expect((await c.query({ ...statement, values: [41] })).rows).toEqual([{ n: 42 }]);
    expect((await c.query('SELECT $1::text AS s', ['x'])).rows).toEqual([{ s: 'x' }]);
  });

  it('still refuses a name prepared with another text', async () => {
    const [a, b] = [await connect(), await connect()];
    await a.query({ name: 'clash', text: 'SELECT 1 AS n' });
    await expect(b.query({ name: 'clash', text: 'SELECT 2 AS n' })).rejects.toThrow(/already exists/);
    expect((await b.query('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
  });

  it('forgets the names when a client deallocates them', async () => {
    const [a, b] = [await connect(), await connect()];
    await a.query({ name: 'gone', text: 'SELECT 5 AS n' });
    await a.query('DEALLOCATE ALL');
    expect((await b.query({ name: 'gone', text: 'SELECT 5 AS n' })).rows).toEqual([{ n: 5 }]);
  });
});
