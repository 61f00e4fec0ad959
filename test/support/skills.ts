// Publishing and reading skills through the HTTP API, for e2e scenarios.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { packageKey, PACKAGES_ROOT } from '../../src/storage/blob-keys';
import { BLOB_STORE, BlobStore, StoredObject } from '../../src/storage/blob-store';
import { withClient } from './database';
import { as, TestApp, TestUser } from './test-app';
import { skillZip, SkillZipOptions } from './zip-builder';

export type Caller = TestUser | string;

export function keyOf(caller: Caller): string {
  return typeof caller === 'string' ? caller : caller.key;
}

export function publish(
  t: TestApp,
  caller: Caller,
  zip: Buffer,
  fields: Record<string, string> = {},
): Promise<request.Response> {
  const req = t.http.post('/api/skills').set(as(keyOf(caller)));
  for (const [k, v] of Object.entries(fields)) void req.field(k, v);
  return req.attach('file', zip, { filename: 'skill.zip', contentType: 'application/zip' });
}

export function publishVersion(t: TestApp, caller: Caller, skillId: number, zip: Buffer): Promise<request.Response> {
  return t.http
    .post(`/api/skills/${skillId}/versions`)
    .set(as(keyOf(caller)))
    .attach('file', zip, { filename: 'skill.zip', contentType: 'application/zip' });
}

/** Publishes `name` (expecting 201) and returns the Skill body. */
export async function publishSkill(
  t: TestApp,
  caller: Caller,
  name: string,
  fields: Record<string, string> = {},
  options: SkillZipOptions = {},
): Promise<{ id: number; latest_version: { version: number; content_hash: string } } & Record<string, unknown>> {
  const res = await publish(t, caller, skillZip(name, options), fields);
  if (res.status !== 201) throw new Error(`publishing ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every object of the app's package store. */
export async function storedObjects(t: TestApp): Promise<StoredObject[]> {
  const objects: StoredObject[] = [];
  for await (const page of t.app.get<BlobStore>(BLOB_STORE).list(PACKAGES_ROOT)) objects.push(...page);
  return objects;
}

/** Row counts of the skill tables and the objects of the package store, to show that a rejected request stored nothing. */
export async function skillRowCounts(t: TestApp): Promise<Record<string, number>> {
  const counts = await withClient(t.db.url, async (c) => {
    const rows: Record<string, number> = {};
    for (const table of ['skills', 'skill_versions', 'skill_blobs']) {
      rows[table] = Number((await c.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
    }
    return rows;
  });
  return { ...counts, stored_packages: (await storedObjects(t)).length };
}

/** Replaces the stored bytes of `contentHash` behind the app's back (a store that lies), in the fs or database store. */
export async function replaceStoredBytes(t: TestApp, contentHash: string, bytes: Buffer): Promise<void> {
  if (t.config.storage.store === 'fs') {
    const path = join(t.config.storage.dir, ...packageKey(contentHash).split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    return;
  }
  if (t.config.storage.store !== 'database') throw new Error('replaceStoredBytes: fs or database stores only');
  await withClient(t.db.url, (c) =>
    c.query('UPDATE skill_blobs SET data = $2, size = $3 WHERE content_hash = $1', [contentHash, bytes, bytes.length]),
  );
}

/** supertest collects a binary body into a Buffer with this parser. */
export function binary(res: request.Response, callback: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}
