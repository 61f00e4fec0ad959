// Publishing and reading skills through the HTTP API, for e2e scenarios.
import { createHash } from 'node:crypto';
import request from 'supertest';
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

/** Row counts of the skill tables, to show that a rejected request stored nothing. */
export function skillRowCounts(t: TestApp): Promise<Record<string, number>> {
  return withClient(t.db.url, async (c) => {
    const counts: Record<string, number> = {};
    for (const table of ['skills', 'skill_versions', 'skill_blobs']) {
      counts[table] = Number((await c.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
    }
    return counts;
  });
}

/** supertest collects a binary body into a Buffer with this parser. */
export function binary(res: request.Response, callback: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}
