// `npm run blobs` (docs/storage.md#copying-between-stores) as operators run it, on a data folder the
// service wrote with its bytes in the database: copy to an S3 store (s3rver on loopback), run
// twice (nothing written the second time), verify it, find what is missing or damaged there, and
// refuse a folder in use and a bad command line. Then the service, switched to the store, serves
// every package and empties the database's table at boot.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageKey } from '../../src/storage/blob-keys';
import { S3Server, startS3Server } from '../support/s3-server';
import { ServiceProcess, startService } from '../support/service-process';
import { skillZip } from '../support/zip-builder';

const BLOBS = join(__dirname, '..', '..', 'dist', 'scripts', 'blobs.js');
const ADMIN = 'blobs-admin-key-0123456789abcdefgh';
const SECRET = 'blobs-secret-never-shown-0123456789';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function blobs(args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, [BLOBS, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run blobs', () => {
  let dataDir: string;
  let s3: S3Server;
  const services: ServiceProcess[] = [];
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3?.close();
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sr-blobs-cli-'));
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop('SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('copies every referenced package to S3 with each hash checked, verifies it, and the service switches over', async () => {
    const env = { DATA_DIR: dataDir, ...s3.env('moved/'), S3_SECRET_ACCESS_KEY: SECRET, S3_ACCESS_KEY_ID: 'S3RVER' };
    const before = startService({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN, BLOB_STORE: 'database' });
    services.push(before);
    const port = await before.ready;
    const hashes: Array<{ id: number; hash: string }> = [];
    for (const name of ['one', 'two', 'three']) {
      const form = new FormData();
      form.set('file', new Blob([skillZip(name)]), `${name}.zip`);
      const res = await fetch(`http://127.0.0.1:${port}/api/skills`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN },
        body: form,
      });
      const body = (await res.json()) as { id: number; latest_version: { content_hash: string } };
      hashes.push({ id: body.id, hash: body.latest_version.content_hash });
    }
    // The folder is in use: the command refuses it rather than open it twice.
    const locked = await blobs(['verify'], { ...env, BLOB_STORE: 'database' });
    expect(locked.code).toBe(73);
    expect(await before.stop()).toBe(0);

    const copied = await blobs(['copy', '--to', 's3'], { ...env, BLOB_STORE: 'database' });
    expect({ code: copied.code, out: copied.stdout }).toEqual({
      code: 0,
      out: expect.stringMatching(
        /copy database -> s3: 3 referenced packages \(.* MiB\): 3 copied, 0 already there, 0 missing, 0 damaged\n$/,
      ),
    });
    const again = await blobs(['copy', '--to', 's3'], { ...env, BLOB_STORE: 'database' });
    expect(again.stdout).toContain('0 copied, 3 already there, 0 missing, 0 damaged');
    const verified = await blobs(['verify', '--store', 's3'], env);
    expect({ code: verified.code, out: verified.stdout }).toEqual({
      code: 0,
      out: expect.stringContaining('verify s3: 3 referenced packages'),
    });

    // A store that lost one package and holds other bytes for another.
    s3.overwrite(`moved/${packageKey(hashes[1].hash)}`, Buffer.from('not the package'));
    const broken = await blobs(['verify', '--store', 's3'], env);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`damaged  ${packageKey(hashes[1].hash)}\n`);
    expect(broken.stdout).toContain('0 missing, 1 damaged');
    // The copy finds the damaged one there and says so, writing nothing over it.
    const recopy = await blobs(['copy', '--to', 's3'], { ...env, BLOB_STORE: 'database' });
    expect(recopy.code).toBe(1);
    expect(recopy.stdout).toContain(`damaged  ${packageKey(hashes[1].hash)} (in the target)`);
    for (const run of [locked, copied, again, verified, broken, recopy]) {
      expect(run.stdout + run.stderr).not.toContain(SECRET);
    }

    // A boot on the store meanwhile moves the two good packages and keeps the third in the database:
    // the store's copy of it is damaged, and the database's is the only good one.
    const early = startService({ ...env, ADMIN_API_KEY: ADMIN, BLOB_STORE: 's3' });
    services.push(early);
    await early.ready;
    expect(early.lines.find((l) => l.includes('package bytes moved'))).toContain('"packages":2');
    expect(early.lines.find((l) => l.includes('packages left in the database'))).toContain('"packages":1');
    expect(await early.stop()).toBe(0);
    expect((await blobs(['verify', '--store', 'database'], env)).stdout).toContain('missing  ');

    // The operator removes the damaged object; the next copy writes it, and the store verifies clean.
    s3.remove(`moved/${packageKey(hashes[1].hash)}`);
    const mended = await blobs(['copy', '--to', 's3'], { ...env, BLOB_STORE: 'database' });
    // Two are in the store only now (moved at that boot): the database has the third alone.
    expect(mended.stdout).toContain('3 referenced packages');
    expect(mended.stdout).toContain('1 copied, 0 already there, 2 missing, 0 damaged');
    expect((await blobs(['verify', '--store', 's3'], env)).code).toBe(0);

    // The service on S3: the boot finds every package there already (each read back and checked)
    // and empties the table.
    const after = startService({ ...env, ADMIN_API_KEY: ADMIN, BLOB_STORE: 's3' });
    services.push(after);
    const port2 = await after.ready;
    const moved = after.lines.find((l) => l.includes('package bytes moved'));
    expect(moved).toContain('"packages":1');
    const res = await fetch(`http://127.0.0.1:${port2}/api/skills/${hashes[0].id}/download`, {
      headers: { 'x-api-key': ADMIN },
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(after.lines.join('\n')).not.toContain(SECRET);
  });

  it.each([
    [['copy'], 64],
    [['copy', '--to', 'database'], 64],
    [['copy', '--to', 'tape'], 64],
    [['verify', '--to', 's3'], 64],
    [['shred'], 64],
    [['verify', '--store', 's3'], 78],
  ])('%j exits %i with a message', async (args, code) => {
    const run = await blobs(args, { DATA_DIR: dataDir, BLOB_STORE: 'database' });
    expect(run.code).toBe(code);
    expect(run.stderr.length).toBeGreaterThan(0);
  });
});
