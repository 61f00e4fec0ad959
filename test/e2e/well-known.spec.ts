// The well-known index and its archives through the real app (docs/well-known.md): off by default,
// then with WELL_KNOWN_INDEX=public: what it lists, the archives byte for byte (unpacked by Info-ZIP
// unzip), caching, changes showing at once, what is left out, and hostile paths.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { AppLogger } from '../../src/common/logging/app-logger';
import { archiveName, DISCOVERY_SCHEMA } from '../../src/skill-index/discovery-index';
import { packageKey } from '../../src/storage/blob-keys';
import { BLOB_STORE, BlobStore } from '../../src/storage/blob-store';
import { sha256Hex, tree } from '../support/client-harness';
import { isServerMode } from '../support/database';
import { listen, rawRequest } from '../support/raw-http';
import { Scenario } from '../support/scenario';
import { binary, publishSkill, publishVersion, replaceStoredBytes, skillRowCounts } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

const ROOT = '/.well-known/agent-skills';
const UNDER_API = '/api/.well-known/agent-skills';
const MOUNTS = [ROOT, UNDER_API];

interface Entry {
  name: string;
  type: string;
  description: string;
  url: string;
  digest: string;
}

const get = (t: TestApp, path: string, headers: Record<string, string> = {}) =>
  t.http.get(path).set(headers).buffer(true).parse(binary);

async function index(t: TestApp, mount = ROOT): Promise<{ res: request.Response; skills: Entry[] }> {
  const res = await t.http.get(`${mount}/index.json`);
  expect(res.status).toBe(200);
  return { res, skills: res.body.skills };
}

/** The skill's files as publish recorded them: path, sha256 and mode. */
async function manifest(
  t: TestApp,
  id: number,
  version?: number,
): Promise<Array<{ path: string; sha256: string; mode: string }>> {
  const res = await t.http.get(`/api/skills/${id}/manifest${version ? `?version=${version}` : ''}`).set(as(ADMIN_KEY));
  expect(res.status).toBe(200);
  return res.body.files;
}

/** Unpacked by Info-ZIP unzip: every file at the root, with its bytes' digest and mode. */
function unzipped(zip: Buffer): Array<{ path: string; sha256: string; mode: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'sr-well-known-'));
  try {
    writeFileSync(join(dir, 'archive.zip'), zip);
    execFileSync('unzip', ['-qq', join(dir, 'archive.zip'), '-d', join(dir, 'out')], { stdio: 'pipe' });
    return tree(join(dir, 'out'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the well-known index with WELL_KNOWN_INDEX unset (off)', () => {
  let t: TestApp;
  let archive: string;

  beforeAll(async () => {
    t = await startTestApp();
    const skill = await publishSkill(t, ADMIN_KEY, 'pdf-tools', { public: 'true' });
    const version = (await t.http.get(`/api/skills/${skill.id}`).set(as(ADMIN_KEY))).body.latest_version;
    archive = `archives/${archiveName('pdf-tools', 1, version.revision)}`;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 404 in the one error shape for everything there, at the root and under /api, to anyone', async () => {
    expect(t.config.wellKnownIndex).toBe('off');
    for (const mount of MOUNTS) {
      for (const path of ['index.json', archive, 'archives/', 'other.json', '', 'skills/pdf-tools/SKILL.md']) {
        for (const headers of [{}, as(ADMIN_KEY)]) {
          const res = await t.http.get(`${mount}/${path}`).set(headers);
          expectError(res, 404, 'NOT_FOUND');
        }
      }
      expectError(await t.http.get(mount), 404, 'NOT_FOUND');
      expectError(await t.http.post(`${mount}/index.json`), 404, 'NOT_FOUND');
    }
  });
});

describe('the well-known index with WELL_KNOWN_INDEX=public', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    // Room for a package of 1,001 files, which the index leaves out.
    t = await startTestApp({ WELL_KNOWN_INDEX: 'public', MAX_PACKAGE_ENTRIES: '1001' });
    s = new Scenario(t);
    alice = await createUser(t, 'alice');
    await s.group(alice, 'team-a');
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists the public skills of a fresh install by name, each archive holding its files at the root, byte for byte', async () => {
    for (const name of ['sql-review', 'pdf-tools', 'git-helper']) {
      const skill = await publishSkill(
        t,
        ADMIN_KEY,
        name,
        { public: 'true' },
        {
          description: `Helps with ${name} work.`,
          files: { 'scripts/run.sh': `#!/bin/sh\necho ${name}\n`, 'references/guide.md': `# ${name}\n`.repeat(200) },
        },
      );
      ids[name] = skill.id;
    }
    // Personal and group skills are never listed.
    await publishSkill(t, alice, 'private-notes', { namespace: 'default' });
    await publishSkill(t, alice, 'team-notes', { namespace: 'team-a' });

    const { res, skills } = await index(t);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers.etag).toBe(`"sha256:${sha256Hex(res.text)}"`);
    expect(Object.keys(res.body)).toEqual(['$schema', 'skills']);
    expect(res.body.$schema).toBe(DISCOVERY_SCHEMA);
    expect(skills.map((e) => e.name)).toEqual(['git-helper', 'pdf-tools', 'sql-review']);

    for (const entry of skills) {
      const version = (await t.http.get(`/api/skills/${ids[entry.name]}`).set(as(ADMIN_KEY))).body.latest_version;
      expect(entry).toEqual({
        name: entry.name,
        type: 'archive',
        description: `Helps with ${entry.name} work.`,
        url: `archives/${entry.name}-1-${version.revision.slice('sha256:'.length, 'sha256:'.length + 12)}.zip`,
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      // The URL is relative to the index: the same entry works at the root and under /api.
      const archive = await get(t, `${ROOT}/${entry.url}`);
      expect(archive.status).toBe(200);
      expect(archive.headers['content-type']).toBe('application/zip');
      expect(archive.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(archive.headers.etag).toBe(`"${entry.digest}"`);
      expect(`sha256:${sha256Hex(archive.body)}`).toBe(entry.digest);
      // Not the stored package (which wraps the files in a folder): SKILL.md is at the root.
      expect(entry.digest).not.toBe(version.content_hash);
      const files = await manifest(t, ids[entry.name]);
      expect(unzipped(archive.body)).toEqual(
        files
          .map((f) => ({ path: f.path, sha256: f.sha256, mode: f.mode === '755' ? 0o755 : 0o644 }))
          .sort((a, b) => (a.path < b.path ? -1 : 1)),
      );
      const again = await get(t, `${UNDER_API}/${entry.url}`);
      expect(again.status).toBe(200);
      expect(again.body.equals(archive.body)).toBe(true);
    }
    const underApi = await index(t, UNDER_API);
    expect(underApi.res.text).toBe(res.text);
    expect(underApi.res.headers.etag).toBe(res.headers.etag);
  });

  it('answers 304 to If-None-Match on the index and on an archive', async () => {
    const { res, skills } = await index(t);
    for (const mount of MOUNTS) {
      const same = await t.http.get(`${mount}/index.json`).set('if-none-match', res.headers.etag);
      expect({ status: same.status, etag: same.headers.etag, body: same.text }).toEqual({
        status: 304,
        etag: res.headers.etag,
        body: '',
      });
      expect(same.headers['cache-control']).toBe('public, max-age=60');
      const archive = await t.http.get(`${mount}/${skills[0].url}`).set('if-none-match', `"${skills[0].digest}"`);
      expect({ status: archive.status, etag: archive.headers.etag }).toEqual({
        status: 304,
        etag: `"${skills[0].digest}"`,
      });
    }
    const other = await t.http.get(`${ROOT}/index.json`).set('if-none-match', '"sha256:0000"');
    expect(other.status).toBe(200);
  });

  it('changes at once: a new version, a yank, a revoke, a delete; an archive is served only while it is listed', async () => {
    const before = await index(t);
    const pdfV1 = before.skills.find((e) => e.name === 'pdf-tools')!;
    const archiveAt = (entry: Entry) => `${ROOT}/${entry.url}`;

    // A new version replaces the entry, with that version's description; v1's archive is gone.
    expect(
      (await publishVersion(t, ADMIN_KEY, ids['pdf-tools'], skillZip('pdf-tools', { description: 'Version two.' })))
        .status,
    ).toBe(201);
    const afterPublish = await index(t);
    expect(afterPublish.res.headers.etag).not.toBe(before.res.headers.etag);
    const pdfV2 = afterPublish.skills.find((e) => e.name === 'pdf-tools')!;
    expect(pdfV2).toEqual(
      expect.objectContaining({ description: 'Version two.', url: expect.stringMatching(/^archives\/pdf-tools-2-/) }),
    );
    expectError(await t.http.get(archiveAt(pdfV1)), 404, 'NOT_FOUND');
    expect((await get(t, archiveAt(pdfV2))).status).toBe(200);

    // Yanking v2 brings v1 back (the latest active or deprecated version), with v1's own description.
    const patch = (version: number, status: string) =>
      t.http.patch(`/api/skills/${ids['pdf-tools']}/versions/${version}`).set(as(ADMIN_KEY)).send({ status });
    expect((await patch(2, 'yanked')).status).toBe(200);
    const afterYank = await index(t);
    expect(afterYank.skills.find((e) => e.name === 'pdf-tools')).toEqual(pdfV1);
    expectError(await t.http.get(archiveAt(pdfV2)), 404, 'NOT_FOUND');
    expect((await get(t, archiveAt(pdfV1))).status).toBe(200);

    // Deprecated still counts as latest.
    expect((await patch(1, 'deprecated')).status).toBe(200);
    expect((await index(t)).skills.find((e) => e.name === 'pdf-tools')).toEqual(pdfV1);

    // Revoking v1 leaves no active or deprecated version: the skill is gone from the index.
    expect((await patch(1, 'revoked')).status).toBe(200);
    const afterRevoke = await index(t);
    expect(afterRevoke.skills.map((e) => e.name)).toEqual(['git-helper', 'sql-review']);
    for (const entry of [pdfV1, pdfV2]) expectError(await t.http.get(archiveAt(entry)), 404, 'NOT_FOUND');

    // Deleting a skill removes it.
    const git = afterRevoke.skills.find((e) => e.name === 'git-helper')!;
    expect((await t.http.delete(`/api/skills/${ids['git-helper']}`).set(as(ADMIN_KEY))).status).toBe(204);
    const afterDelete = await index(t);
    expect(afterDelete.skills.map((e) => e.name)).toEqual(['sql-review']);
    expectError(await t.http.get(archiveAt(git)), 404, 'NOT_FOUND');
    expectError(await t.http.get(`${UNDER_API}/${git.url}`), 404, 'NOT_FOUND');

    // A public skill of the same name published again is listed under its new archive.
    const republished = await publishSkill(
      t,
      ADMIN_KEY,
      'git-helper',
      { public: 'true' },
      { description: 'Back again.' },
    );
    const afterRepublish = await index(t);
    const gitAgain = afterRepublish.skills.find((e) => e.name === 'git-helper')!;
    expect(gitAgain.description).toBe('Back again.');
    expect(gitAgain.url).not.toBe(git.url);
    ids['git-helper'] = republished.id;
  });

  it('serves no archive the index does not list: private, group, unknown, an older version, a wrong revision', async () => {
    const { skills } = await index(t);
    const sql = skills.find((e) => e.name === 'sql-review')!;
    const revision = sql.url.slice(-'0123456789ab.zip'.length, -'.zip'.length);
    const privateSkill = (await t.http.get('/api/skills?name=private-notes').set(as(alice.key))).body.items[0];
    const groupSkill = (await t.http.get('/api/skills?name=team-notes').set(as(alice.key))).body.items[0];
    const names = [
      `private-notes-1-${privateSkill.latest_version.revision.slice(7, 19)}.zip`,
      `team-notes-1-${groupSkill.latest_version.revision.slice(7, 19)}.zip`,
      `no-such-skill-1-${revision}.zip`,
      `sql-review-2-${revision}.zip`,
      `sql-review-1-${revision.replace(/^./, (c) => (c === '0' ? '1' : '0'))}.zip`,
      `sql-review-1-${revision.toUpperCase()}.zip`,
      `sql-review-1-${revision}.tar.gz`,
      `sql-review-1-${revision}`,
      `sql-review-01-${revision}.zip`,
    ];
    const file = sql.url.slice('archives/'.length);
    for (const mount of MOUNTS) {
      expect((await get(t, `${mount}/${sql.url}`)).status).toBe(200);
      for (const name of names) expectError(await t.http.get(`${mount}/archives/${name}`), 404, 'NOT_FOUND');
      // Its own name, spelled otherwise: the path is exact (Express alone would match these).
      for (const path of [`ARCHIVES/${file}`, `archives/${file}/`, `archives/%73${file.slice(1)}`]) {
        expectError(await t.http.get(`${mount}/${path}`), 404, 'NOT_FOUND');
      }
    }
  });

  it('leaves out what the installer cannot take: more than 1,000 files, a path it reads as a drive', async () => {
    const files = (n: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`refs/${i}.md`, `# ${i}\n`]));
    // SKILL.md plus 999 files: 1,000 in all, which the installer takes.
    const taken = await publishSkill(t, ADMIN_KEY, 'thousand-files', { public: 'true' }, { files: files(999) });
    await publishSkill(t, ADMIN_KEY, 'too-many-files', { public: 'true' }, { files: files(1000) });
    await publishSkill(t, ADMIN_KEY, 'drive-path', { public: 'true' }, { files: { 'c:notes.md': 'x' } });
    const { skills } = await index(t);
    expect(skills.map((e) => e.name)).toEqual(['git-helper', 'sql-review', 'thousand-files']);
    const archive = await get(t, `${ROOT}/${skills[2].url}`);
    expect(archive.status).toBe(200);
    expect(unzipped(archive.body)).toHaveLength(1000);
    expect((await manifest(t, taken.id)).length).toBe(1000);
    for (const name of ['too-many-files', 'drive-path']) {
      const skill = (await t.http.get(`/api/skills?name=${name}`).set(as(ADMIN_KEY))).body.items[0];
      const file = archiveName(name, 1, skill.latest_version.revision);
      for (const mount of MOUNTS) expectError(await t.http.get(`${mount}/archives/${file}`), 404, 'NOT_FOUND');
    }
  });

  it('cuts a description to 1,024 UTF-16 code units at a code point boundary', async () => {
    // 600 astral characters: 600 code points (within the format's 1,024) but 1,200 UTF-16 units.
    const description = `${'a'.repeat(101)}${'\u{1F600}'.repeat(600)}`;
    await publishSkill(t, ADMIN_KEY, 'emoji-notes', { public: 'true' }, { description });
    const entry = (await index(t)).skills.find((e) => e.name === 'emoji-notes')!;
    // 101 units, then 461 pairs (922 units) = 1,023: the 462nd pair would end at unit 1,025.
    expect(entry.description).toBe(`${'a'.repeat(101)}${'\u{1F600}'.repeat(461)}`);
    expect(entry.description.length).toBe(1023);
    expect(entry.description.isWellFormed()).toBe(true);
  });

  it('leaves out a version whose stored bytes are damaged, says why in the log, and serves the rest', async () => {
    const { skills: before } = await index(t);
    const skill = await publishSkill(t, ADMIN_KEY, 'damaged-bytes', { public: 'true' });
    const hash = skill.latest_version.content_hash;
    // Damaged behind the app's back before any index read the version: one byte of its data flipped.
    const stored = (await t.app.get<BlobStore>(BLOB_STORE).get(packageKey(hash)))!;
    stored[40] ^= 1;
    await replaceStoredBytes(t, hash, stored);
    const logged = t.logs.length;
    const { skills } = await index(t);
    expect(skills).toEqual(before);
    const lines = t.logs.slice(logged).filter((line) => line.includes('left out of the well-known index'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toEqual(
      expect.objectContaining({ level: 'error', skill_id: skill.id, version: 1, content_hash: hash }),
    );
    const revision = (await t.http.get(`/api/skills/${skill.id}`).set(as(ADMIN_KEY))).body.latest_version.revision;
    expectError(await t.http.get(`${ROOT}/archives/${archiveName('damaged-bytes', 1, revision)}`), 404, 'NOT_FOUND');
    expect((await get(t, `${ROOT}/${skills[0].url}`)).status).toBe(200);
  });

  it('answers hostile paths with 404 in the one shape, storing nothing', async () => {
    const port = await listen(t);
    const rows = await skillRowCounts(t);
    const paths = [
      '/archives/..%2Findex.json',
      '/archives/..%2F..%2F..%2Fetc%2Fpasswd',
      '/archives/%2e%2e/index.json',
      '/archives/a%2Fb-1-0123456789ab.zip',
      '/archives/%00-1-0123456789ab.zip',
      '/archives/%ZZ',
      '/archives/%',
      `/archives/${'a'.repeat(8_000)}-1-0123456789ab.zip`,
      `/archives/${'a-'.repeat(4_000)}1-0123456789ab.zip`,
      `/${'x/'.repeat(3_000)}`,
      '/index.json/',
      '/index.json%00',
      '/INDEX.JSON',
      '/Index.json',
      '/ARCHIVES/SQL-REVIEW-1-0123456789AB.ZIP',
      '/archives',
      '/archives/',
      '/./index.json/..',
    ];
    const answers: string[] = [];
    for (const mount of MOUNTS) {
      for (const path of paths) {
        const res = await rawRequest(port, { path: `${mount}${path}` });
        answers.push(`${res.status} ${res.body?.code} ${`${mount}${path}`.slice(0, 80)}`);
      }
    }
    expect(answers.filter((line) => !line.startsWith('404 NOT_FOUND '))).toEqual([]);
    expect(await skillRowCounts(t)).toEqual(rows);
  });

  it('labels its requests in the metrics by route, not by path', async () => {
    await t.http.get(`${ROOT}/index.json`);
    await t.http.get(`${ROOT}/archives/nothing-1-0123456789ab.zip`);
    const metrics = await t.http.get('/api/metrics').set(as(ADMIN_KEY));
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('route="/.well-known/agent-skills/index.json"');
    expect(metrics.text).toContain('route="/.well-known/agent-skills/archives/:file",status="404"');
    expect(metrics.text).not.toContain('nothing-1-0123456789ab');
  });

  it('needs no credentials, and ignores wrong ones', async () => {
    const { res } = await index(t);
    const withBadKey = await t.http.get(`${ROOT}/index.json`).set(as('srk_not-a-key'));
    expect(withBadKey.status).toBe(200);
    expect(withBadKey.text).toBe(res.text);
  });
});

// Two replicas on one PostgreSQL server: the index one keeps is dropped when the other writes.
const onServer = isServerMode() ? describe : describe.skip;

onServer('the well-known index across replicas', () => {
  let a: TestApp;
  let b: NestExpressApplication;

  beforeAll(async () => {
    a = await startTestApp({ WELL_KNOWN_INDEX: 'public' });
    b = await createApp(a.config, { databaseUrl: a.db.url, logger: new AppLogger('error'), listenForChanges: true });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('a revoke through another replica removes the skill from the next answer once it is heard', async () => {
    const skill = await publishSkill(a, ADMIN_KEY, 'shared-skill', { public: 'true' });
    const first = await index(a);
    expect(first.skills.map((e) => e.name)).toEqual(['shared-skill']);
    expect((await a.http.get(`${ROOT}/index.json`).set('if-none-match', first.res.headers.etag)).status).toBe(304);
    // Its archive is served (and its version kept) before the revoke, and not after it.
    expect((await get(a, `${ROOT}/${first.skills[0].url}`)).status).toBe(200);
    const revoked = await request(b.getHttpServer())
      .patch(`/api/skills/${skill.id}/versions/1`)
      .set(as(ADMIN_KEY))
      .send({ status: 'revoked' });
    expect(revoked.status).toBe(200);
    await a.heard();
    expect((await index(a)).skills).toEqual([]);
    expectError(await a.http.get(`${ROOT}/${first.skills[0].url}`), 404, 'NOT_FOUND');
  });
});
