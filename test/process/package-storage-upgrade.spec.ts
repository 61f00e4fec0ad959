// Upgrading to the package stores loses nothing (docs/storage.md#upgrading): a data folder (or a
// server database) whose bytes sit in the database, as the release before the stores left them, is
// made here by the service itself with BLOB_STORE=database and then taken back to that release's
// schema (the storage migration's `down`: no offsets, the foreign key back). Started again on it,
// the service records every file's offsets from the stored bytes, moves the bytes to the configured
// folder with every hash checked (the embedded default), and serves every package it held.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { buildDataSourceOptions } from '../../src/schema/typeorm-options';
import { emptyServerDatabase, isServerMode, TestDatabase } from '../support/database';
import { ServiceProcess, startService as start } from '../support/service-process';
import { skillZip } from '../support/zip-builder';

const ADMIN = 'upgrade-admin-key-0123456789abcdef';
const EMBEDDED_SERVER = join(__dirname, '..', '..', 'dist', 'scripts', 'embedded-server.js');
const sha = (data: Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

interface Published {
  id: number;
  hash: string;
  file: string;
  text: string;
}

/** Runs `work` on the embedded database of `dataDir`, served by a process of its own (the folder's lock held). */
async function onEmbedded<T>(dataDir: string, work: (url: string) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, [EMBEDDED_SERVER, dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for await (const line of createInterface({ input: child.stdout })) {
      return await work((JSON.parse(line) as { url: string }).url);
    }
    throw new Error('the embedded database exited before it was ready');
  } finally {
    child.stdin.end();
    await exited;
  }
}

/** What the release before the package stores had: the storage migration undone. */
async function backToTheReleaseBefore(url: string): Promise<void> {
  const db = new DataSource(buildDataSourceOptions({ url, poolSize: 1 }));
  await db.initialize();
  try {
    // Every migration from the storage one on is undone, the storage one last.
    const storage = MIGRATIONS.findIndex((m) => m.name.startsWith('PackageStorage'));
    for (let undone = MIGRATIONS.length - 1; undone >= storage; undone--) {
      const last = await db.query<Array<{ name: string }>>(
        'SELECT name FROM typeorm_migrations ORDER BY id DESC LIMIT 1',
      );
      expect(last[0].name).toBe(MIGRATIONS[undone].name);
      await db.undoLastMigration({ transaction: 'all' });
    }
    const columns = await db.query<unknown[]>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'skill_versions' AND column_name IN ('file_offsets', 'bytes_purged_at')`,
    );
    expect(columns).toEqual([]);
  } finally {
    await db.destroy();
  }
}

async function blobRows(url: string): Promise<number> {
  const db = new DataSource(buildDataSourceOptions({ url, poolSize: 1 }));
  await db.initialize();
  try {
    const [row] = await db.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM skill_blobs');
    return row.n;
  } finally {
    await db.destroy();
  }
}

/** Publishes three skills (two with the same bytes under different names is impossible: names are inside). */
async function publishThree(port: number): Promise<Published[]> {
  const out: Published[] = [];
  for (const [name, file, text] of [
    ['alpha', 'notes.md', 'alpha notes\n'],
    ['beta', 'big.txt', Array.from({ length: 40_000 }, (_, i) => `beta line ${i * 7919}`).join('\n')],
    ['gamma', 'run.sh', '#!/bin/sh\necho gamma\n'],
  ]) {
    const form = new FormData();
    form.set('file', new Blob([skillZip(name, { files: { [file]: text } })]), `${name}.zip`);
    const res = await fetch(`http://127.0.0.1:${port}/api/skills`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN },
      body: form,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: number; latest_version: { content_hash: string } };
    out.push({ id: body.id, hash: body.latest_version.content_hash, file, text });
  }
  return out;
}

/** Every package downloads with its hash, and one file of each reads back. */
async function servesEverything(port: number, published: Published[]): Promise<void> {
  for (const p of published) {
    const res = await fetch(`http://127.0.0.1:${port}/api/skills/${p.id}/download`, {
      headers: { 'x-api-key': ADMIN },
    });
    expect(res.status).toBe(200);
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(p.hash);
    const file = await fetch(`http://127.0.0.1:${port}/api/skills/${p.id}/files/${p.file}`, {
      headers: { 'x-api-key': ADMIN },
    });
    expect({ status: file.status, text: await file.text() }).toEqual({ status: 200, text: p.text });
  }
}

function movedLine(lines: string[]): Record<string, unknown> | undefined {
  const line = lines.find((l) => l.includes('package bytes moved from the database'));
  return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
}

function storedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

/** Services started by a test, stopped after it whatever happened. */
const running: ServiceProcess[] = [];
function startService(env: Record<string, string>): ServiceProcess {
  const service = start(env);
  running.push(service);
  return service;
}

describe('upgrading to the package stores', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sr-upgrade-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.stop('SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an embedded data folder: bytes moved to DATA_DIR/blobs at first boot, every package served', async () => {
    const before = startService({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN, BLOB_STORE: 'database' });
    const published = await publishThree(await before.ready);
    expect(await before.stop()).toBe(0);
    await onEmbedded(dataDir, backToTheReleaseBefore);

    const upgraded = startService({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN });
    const port = await upgraded.ready;
    expect(movedLine(upgraded.lines)).toEqual(expect.objectContaining({ store: 'fs', packages: 3 }));
    await servesEverything(port, published);
    expect(await upgraded.stop()).toBe(0);

    // Every package is a file named by its hash, holding exactly those bytes; none stays in the database.
    const blobs = join(dataDir, 'blobs');
    expect(storedFiles(blobs)).toEqual(published.map((p) => `${p.hash.slice(7)}.zip`).sort());
    for (const p of published) {
      const path = join(blobs, 'packages', 'sha256', p.hash.slice(7, 9), `${p.hash.slice(7)}.zip`);
      expect(sha(readFileSync(path))).toBe(p.hash);
    }
    expect(await onEmbedded(dataDir, blobRows)).toBe(0);

    // A later boot has nothing to move.
    const again = startService({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN });
    await servesEverything(await again.ready, published);
    expect(movedLine(again.lines)).toBeUndefined();
    expect(await again.stop()).toBe(0);
  });

  (isServerMode() ? describe : describe.skip)('a server database', () => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await emptyServerDatabase();
    });
    afterEach(async () => {
      await db.drop();
    });

    it('keeps its bytes in the database by default; moved once BLOB_STORE names another store', async () => {
      const env = { DATABASE_URL: db.url, ADMIN_API_KEY: ADMIN, DATA_DIR: dataDir };
      const before = startService(env);
      const published = await publishThree(await before.ready);
      expect(await before.stop()).toBe(0);
      await backToTheReleaseBefore(db.url);

      // The default with a server is the database: read where they are.
      const same = startService(env);
      await servesEverything(await same.ready, published);
      expect(movedLine(same.lines)).toBeUndefined();
      expect(await same.stop()).toBe(0);
      expect(await blobRows(db.url)).toBe(3);

      const moved = startService({ ...env, BLOB_STORE: 'fs', BLOB_DIR: join(dataDir, 'elsewhere') });
      const port = await moved.ready;
      expect(movedLine(moved.lines)).toEqual(expect.objectContaining({ store: 'fs', packages: 3 }));
      await servesEverything(port, published);
      expect(await moved.stop()).toBe(0);
      expect(await blobRows(db.url)).toBe(0);
      expect(storedFiles(join(dataDir, 'elsewhere'))).toHaveLength(3);
    });
  });
});
