import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { withClient } from '../support/database';
import { packageKey } from '../../src/storage/blob-keys';
import {
  binary,
  Caller,
  publish,
  publishSkill,
  publishVersion,
  sha256,
  skillRowCounts,
  storedObjects,
} from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { buildZip, skillZip } from '../support/zip-builder';

describe('skill registry', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let dev: TestUser;
  let dev2: TestUser;
  let maint: TestUser;
  let rep: TestUser;

  beforeAll(async () => {
    // Eight concurrent versions from one user are part of the story below.
    t = await startTestApp({ MAX_UPLOADS_PER_USER: '8', INSPECTION_WORKERS: '4' });
    [alice, bob, dev, dev2, maint, rep] = await Promise.all(
      ['alice', 'bob', 'dev', 'dev2', 'maint', 'rep'].map((n) => createUser(t, n)),
    );
    const group = await t.http.post('/api/groups').set(as(maint.key)).send({ name: 'team-a' });
    for (const [user, role] of [
      [dev, 'Developer'],
      [dev2, 'Developer'],
      [rep, 'Reporter'],
    ] as const) {
      await t.http.put(`/api/groups/${group.body.id}/members/${user.id}`).set(as(maint.key)).send({ role });
    }
  });
  afterAll(async () => {
    await t.close();
  });

  describe('publishing', () => {
    it('publishes a personal skill whose hashes and manifest match the stored bytes', async () => {
      const zip = skillZip('pdf-tools', {
        description: 'Reads PDFs.',
        files: { 'scripts/run.sh': '#!/bin/sh\necho hi\n', 'README.md': 'readme' },
      });
      const res = await publish(t, alice, zip);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'pdf-tools',
        namespace: 'default',
        is_public: false,
        owner_user_id: alice.id,
        description: 'Reads PDFs.',
        latest_version: {
          version: 1,
          content_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          revision: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          size: expect.any(Number),
          file_count: 3,
          allowed_tools: null,
          requires: { bins: [], env: [] },
          created_at: expect.any(String),
          status: 'active',
          status_message: null,
          status_changed_at: null,
          // Uploaded, not imported from git (docs/publishing.md#provenance).
          source: null,
        },
        tags: {},
        created_at: expect.any(String),
        updated_at: expect.any(String),
        warnings: [],
      });
      const manifest = await t.http.get(`/api/skills/${res.body.id}/manifest`).set(as(alice.key));
      expect(manifest.body).toEqual({
        skill_id: res.body.id,
        name: 'pdf-tools',
        namespace: 'default',
        is_public: false,
        version: 1,
        content_hash: res.body.latest_version.content_hash,
        revision: res.body.latest_version.revision,
        files: [
          { path: 'README.md', size: 6, sha256: sha256('readme'), mode: '644' },
          { path: 'SKILL.md', size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), mode: '644' },
          { path: 'scripts/run.sh', size: 18, sha256: sha256('#!/bin/sh\necho hi\n'), mode: '644' },
        ],
        frontmatter: { name: 'pdf-tools', description: 'Reads PDFs.' },
        skill_md: '---\nname: "pdf-tools"\ndescription: "Reads PDFs."\n---\n# Skill\n',
        source: null,
        allowed_tools: null,
        requires: { bins: [], env: [] },
      });
      const download = await t.http
        .get(`/api/skills/${res.body.id}/download`)
        .set(as(alice.key))
        .buffer()
        .parse(binary);
      expect(download.status).toBe(200);
      // What is stored is the canonical zip rebuilt from the files, not the upload.
      expect(Buffer.compare(download.body, zip)).not.toBe(0);
      expect(`sha256:${sha256(download.body)}`).toBe(res.body.latest_version.content_hash);
      expect(download.body.length).toBe(res.body.latest_version.size);
      expect(download.headers['etag']).toBe(`"${res.body.latest_version.content_hash}"`);
      expect(download.headers['content-type']).toBe('application/zip');
      expect(download.headers['content-disposition']).toBe('attachment; filename="pdf-tools-1.zip"');
      expect(download.headers['cache-control']).toBe('private, no-cache');
    });

    it('the same name lives in each scope once: personal (per owner), group, public', async () => {
      const mine = await publishSkill(t, alice, 'shared-name');
      const bobs = await publishSkill(t, bob, 'shared-name');
      const group = await publishSkill(t, dev, 'shared-name', { namespace: 'team-a' });
      const pub = await publishSkill(t, ADMIN_KEY, 'shared-name', { public: 'true' });
      expect(new Set([mine.id, bobs.id, group.id, pub.id]).size).toBe(4);
      expect(pub).toEqual(expect.objectContaining({ namespace: 'default', is_public: true, owner_user_id: null }));
      expect(group).toEqual(expect.objectContaining({ namespace: 'team-a', is_public: false, owner_user_id: dev.id }));

      const before = await skillRowCounts(t);
      for (const [caller, fields] of [
        [alice, {}],
        [dev2, { namespace: 'team-a' }],
        [ADMIN_KEY, { public: 'true' }],
      ] as const) {
        const res = await publish(t, caller, skillZip('shared-name', { description: 'another' }), fields);
        expectError(res, 409, 'SKILL_EXISTS');
      }
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it.each([
      ['a Reporter', (): Caller => rep, { namespace: 'team-a' }, 403, 'FORBIDDEN'],
      ['a non-member', (): Caller => bob, { namespace: 'team-a' }, 404, 'NOT_FOUND'],
      ['anyone in a group that does not exist', (): Caller => alice, { namespace: 'no-such-group' }, 404, 'NOT_FOUND'],
      ['a user publishing a public skill', (): Caller => alice, { public: 'true' }, 403, 'FORBIDDEN'],
      [
        'public outside default',
        (): Caller => ADMIN_KEY,
        { public: 'true', namespace: 'team-a' },
        400,
        'VALIDATION_FAILED',
      ],
      ['a reserved namespace', (): Caller => alice, { namespace: 'admin' }, 400, 'VALIDATION_FAILED'],
      ['an unknown form field', (): Caller => alice, { color: 'red' }, 400, 'VALIDATION_FAILED'],
    ] as const)('%s is refused and nothing is stored', async (_case, who, fields, status, code) => {
      const before = await skillRowCounts(t);
      expectError(await publish(t, who(), skillZip('refused-skill'), fields), status, code);
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it('a missing file is 400 VALIDATION_FAILED', async () => {
      const res = await t.http.post('/api/skills').set(as(alice.key)).field('namespace', 'default');
      expect(expectError(res, 400, 'VALIDATION_FAILED').message).toEqual(['file is required']);
    });

    it.each([
      ['not a zip', Buffer.from('hello'), ['ZIP_INVALID']],
      ['no SKILL.md', buildZip([{ path: 'x/readme.md', data: 'x' }]), ['SKILL_MD_MISSING']],
      [
        'path traversal',
        buildZip([
          { path: 'a/SKILL.md', data: '---\nname: a\ndescription: d\n---\n' },
          { path: 'a/../../etc/x', data: 'x' },
        ]),
        ['ZIP_UNSAFE_PATH'],
      ],
      [
        'a symlink',
        buildZip([
          { path: 'a/SKILL.md', data: '---\nname: a\ndescription: d\n---\n' },
          { path: 'a/link', data: '/etc/passwd', mode: 0o120777 },
        ]),
        ['ZIP_SYMLINK'],
      ],
      [
        'several frontmatter problems at once',
        skillZip('x', { frontmatter: 'name: Bad--Name\ncompatibility: ""' }),
        ['NAME_INVALID', 'DESCRIPTION_MISSING', 'COMPATIBILITY_INVALID'],
      ],
    ])('%s: 400 SKILL_INVALID with every problem, nothing stored', async (_case, zip, codes) => {
      const before = await skillRowCounts(t);
      const body = expectError(await publish(t, alice, zip), 400, 'SKILL_INVALID');
      const errors = (body.details as { errors: Array<{ code: string }> }).errors;
      expect(errors.map((e) => e.code).sort()).toEqual([...codes].sort());
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it('a package over the byte cap is 413 PACKAGE_TOO_LARGE and stores nothing', async () => {
      const before = await skillRowCounts(t);
      const big = skillZip('too-big', { files: { 'blob.bin': randomBytes(11 * 1024 * 1024) } });
      expectError(await publish(t, alice, big), 413, 'PACKAGE_TOO_LARGE');
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it('validate reports problems and warnings for anything under the cap, storing nothing', async () => {
      const before = await skillRowCounts(t);
      const bad = await t.http
        .post('/api/skills/validate')
        .set(as(bob.key))
        .attach('file', skillZip('ok-name', { frontmatter: 'name: ok-name\ncolor: red' }), 'p.zip');
      expect(bad.status).toBe(200);
      expect(bad.body).toEqual({
        valid: false,
        name: 'ok-name',
        description: null,
        errors: [expect.objectContaining({ code: 'DESCRIPTION_MISSING', field: 'description' })],
        warnings: [expect.objectContaining({ code: 'UNKNOWN_FIELD', field: 'color' })],
      });
      const good = await t.http.post('/api/skills/validate').set(as(bob.key)).attach('file', skillZip('fine'), 'p.zip');
      expect(good.body).toEqual({ valid: true, name: 'fine', description: 'A test skill.', errors: [], warnings: [] });
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it('the same files, zipped differently, as two skills are stored once', async () => {
      const zip = skillZip('dedup-me', { files: { 'a.txt': 'a', 'b.txt': 'b' } });
      const rezipped = buildZip([
        { path: 'dedup-me/b.txt', data: 'b', method: 'store' },
        { path: 'dedup-me/', directory: true },
        { path: 'dedup-me/SKILL.md', data: '---\nname: "dedup-me"\ndescription: "A test skill."\n---\n# Skill\n' },
        { path: 'dedup-me/a.txt', data: 'a', descriptor: true },
      ]);
      const first = await publish(t, alice, zip);
      const second = await publish(t, bob, rezipped);
      expect(second.body.latest_version.content_hash).toBe(first.body.latest_version.content_hash);
      const stored = (await storedObjects(t)).filter(
        (o) => o.key === packageKey(first.body.latest_version.content_hash),
      );
      expect(stored).toHaveLength(1);
    });
  });

  describe('multipart mistakes are 400 VALIDATION_FAILED naming the field, and store nothing', () => {
    it.each([
      [
        'the package under another field name',
        (req: request.Test) => req.attach('package', skillZip('wrong-field'), 'p.zip'),
        'package: unexpected file field "package"; send the package in the field "file"',
      ],
      [
        'two files',
        (req: request.Test) => req.attach('file', skillZip('one'), 'a.zip').attach('file', skillZip('two'), 'b.zip'),
        'file: send exactly one file, in the field "file"',
      ],
      ['no file at all', (req: request.Test) => req.field('namespace', 'default'), 'file is required'],
      [
        'an unknown text field',
        (req: request.Test) => req.field('visibility', 'public').attach('file', skillZip('extra-field'), 'p.zip'),
        'property visibility should not exist',
      ],
    ])('%s', async (_title, build, message) => {
      const before = await skillRowCounts(t);
      const res = await build(t.http.post('/api/skills').set(as(alice.key)));
      expect(expectError(res, 400, 'VALIDATION_FAILED').message).toEqual([message]);
      expect(await skillRowCounts(t)).toEqual(before);
    });
  });

  describe('versions', () => {
    it('adds N+1; the same files, however zipped, answer 200 and create nothing; a renamed package is NAME_MISMATCH', async () => {
      const v1 = skillZip('versioned', { description: 'one' });
      const skill = await publishSkill(t, alice, 'versioned', {}, { description: 'one' });
      const v2 = skillZip('versioned', { description: 'two' });
      const res2 = await publishVersion(t, alice, skill.id, v2);
      expect(res2.status).toBe(201);
      expect(res2.body.latest_version).toEqual(expect.objectContaining({ version: 2 }));
      expect(res2.body.latest_version.content_hash).not.toBe(skill.latest_version.content_hash);
      expect(res2.body.description).toBe('two');

      const before = await skillRowCounts(t);
      const same = await publishVersion(t, alice, skill.id, v2);
      expect(same.status).toBe(200);
      expect(same.body.latest_version).toEqual(res2.body.latest_version);
      const rezipped = buildZip([
        {
          path: 'versioned/SKILL.md',
          data: '---\nname: "versioned"\ndescription: "two"\n---\n# Skill\n',
          method: 'store',
        },
      ]);
      const sameFiles = await publishVersion(t, alice, skill.id, rezipped);
      expect(sameFiles.status).toBe(200);
      expect(sameFiles.body.latest_version).toEqual(res2.body.latest_version);
      expectError(await publishVersion(t, alice, skill.id, skillZip('other-name')), 400, 'NAME_MISMATCH');
      expect(await skillRowCounts(t)).toEqual(before);

      // Re-publishing the bytes of v1 is a change relative to v2: version 3.
      expect((await publishVersion(t, alice, skill.id, v1)).body.latest_version.version).toBe(3);
      const versions = await t.http.get(`/api/skills/${skill.id}/versions?limit=2`).set(as(alice.key));
      expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([3, 2]);
      expect(versions.body.next_cursor).toBe('2');
      const rest = await t.http.get(`/api/skills/${skill.id}/versions?limit=2&cursor=2`).set(as(alice.key));
      expect(rest.body).toEqual({ items: [expect.objectContaining({ version: 1 })], next_cursor: null });

      // A given version downloads its own bytes, immutable.
      const old = await t.http
        .get(`/api/skills/${skill.id}/download?version=1`)
        .set(as(alice.key))
        .buffer()
        .parse(binary);
      expect(`sha256:${sha256(old.body)}`).toBe(skill.latest_version.content_hash);
      expect(sha256(v1)).not.toBe(sha256(old.body));
      expect(old.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(old.headers['content-disposition']).toBe('attachment; filename="versioned-1.zip"');
      expectError(await t.http.get(`/api/skills/${skill.id}/download?version=9`).set(as(alice.key)), 404, 'NOT_FOUND');
      expectError(
        await t.http.get(`/api/skills/${skill.id}/manifest?version=0`).set(as(alice.key)),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('concurrent uploads get consecutive versions with no gap or duplicate', async () => {
      const skill = await publishSkill(t, bob, 'busy');
      const uploads = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          publishVersion(t, bob, skill.id, skillZip('busy', { description: `v${i}` })),
        ),
      );
      expect(uploads.map((r) => r.status)).toEqual(Array(8).fill(201));
      expect(uploads.map((r) => r.body.latest_version.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      const rows = await withClient(t.db.url, (c) =>
        c.query('SELECT version FROM skill_versions WHERE skill_id = $1 ORDER BY version', [skill.id]),
      );
      expect(rows.rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect((await t.http.get(`/api/skills/${skill.id}`).set(as(bob.key))).body.latest_version.version).toBe(9);
    });

    it.each([
      ['its creator while Developer', 201, (): Caller => dev],
      ['a Maintainer', 201, (): Caller => maint],
      ['an admin', 201, (): Caller => ADMIN_KEY],
      ['another Developer', 403, (): Caller => dev2],
      ['a Reporter', 403, (): Caller => rep],
      ['a non-member', 404, (): Caller => bob],
    ] as const)('a group skill answers a new version from %s with %s', async (_who, status, who) => {
      const skill = await publishSkill(t, dev, `grp-${status}-${Math.random().toString(36).slice(2, 8)}`, {
        namespace: 'team-a',
      });
      const res = await publishVersion(t, who(), skill.id, skillZip(skill.name as string, { description: 'next' }));
      expect(res.status).toBe(status);
    });

    it("another user's personal skill is 404 for new versions; a public one 403 for users", async () => {
      const mine = await publishSkill(t, alice, 'alices-own');
      expectError(
        await publishVersion(t, bob, mine.id, skillZip('alices-own', { description: 'x' })),
        404,
        'NOT_FOUND',
      );
      const pub = await publishSkill(t, ADMIN_KEY, 'pub-versioned', { public: 'true' });
      expectError(
        await publishVersion(t, bob, pub.id, skillZip('pub-versioned', { description: 'x' })),
        403,
        'FORBIDDEN',
      );
    });
  });

  describe('reading', () => {
    it('ETag and If-None-Match: 304 with no body, for the latest and a given version', async () => {
      const skill = await publishSkill(t, alice, 'etagged');
      const etag = `"${skill.latest_version.content_hash}"`;
      for (const path of [`/api/skills/${skill.id}/download`, `/api/skills/${skill.id}/download?version=1`]) {
        const res = await t.http.get(path).set(as(alice.key)).set('If-None-Match', `"sha256:other", ${etag}`);
        expect(res.status).toBe(304);
        expect(res.headers['etag']).toBe(etag);
        expect(res.text ?? '').toBe('');
      }
      expect(
        (await t.http.get(`/api/skills/${skill.id}/download`).set(as(alice.key)).set('If-None-Match', '"sha256:other"'))
          .status,
      ).toBe(200);
    });

    it('personal skills are 404 to others, group skills readable by Reporter+, public by everyone', async () => {
      const personal = await publishSkill(t, alice, 'secret-skill');
      const group = await publishSkill(t, dev, 'group-skill', { namespace: 'team-a' });
      const pub = await publishSkill(t, ADMIN_KEY, 'public-skill', { public: 'true' });
      const missing = await t.http.get('/api/skills/999999').set(as(bob.key));
      for (const path of ['', '/versions', '/manifest', '/download']) {
        const hidden = await t.http.get(`/api/skills/${personal.id}${path}`).set(as(bob.key));
        expectError(hidden, 404, 'NOT_FOUND');
        expect({ ...hidden.body, requestId: '' }).toEqual({ ...missing.body, requestId: '' });
        expectError(await t.http.get(`/api/skills/${group.id}${path}`).set(as(bob.key)), 404, 'NOT_FOUND');
        expect((await t.http.get(`/api/skills/${group.id}${path}`).set(as(rep.key))).status).toBe(200);
        expect((await t.http.get(`/api/skills/${pub.id}${path}`).set(as(bob.key))).status).toBe(200);
        expect((await t.http.get(`/api/skills/${personal.id}${path}`).set(as(ADMIN_KEY))).status).toBe(200);
      }
    });

    it('lists only what the caller may read, with filters and cursor pagination', async () => {
      const names = async (key: string, query: string): Promise<string[]> => {
        const res = await t.http.get(`/api/skills${query}`).set(as(key));
        expect(res.status).toBe(200);
        return res.body.items.map(
          (s: { name: string; namespace: string; is_public: boolean }) =>
            `${s.is_public ? 'public' : s.namespace}:${s.name}`,
        );
      };
      const repSees = await names(rep.key, '?limit=100&name=shared-name');
      expect(repSees.sort()).toEqual(['public:shared-name', 'team-a:shared-name']);
      expect(await names(alice.key, '?limit=100&name=shared-name')).toEqual([
        'default:shared-name',
        'public:shared-name',
      ]);
      expect(await names(alice.key, '?is_public=false&name=shared-name')).toEqual(['default:shared-name']);
      expect(await names(rep.key, '?namespace=team-a&name=shared-name')).toEqual(['team-a:shared-name']);
      expect(await names(alice.key, '?q=READS%20pdf')).toEqual(['default:pdf-tools']);
      expect(await names(alice.key, '?q=%25')).toEqual([]);

      const seen: number[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const page: { body: { items: Array<{ id: number }>; next_cursor: string | null } } = await t.http
          .get(`/api/skills?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
          .set(as(alice.key));
        seen.push(...page.body.items.map((s) => s.id));
        cursor = page.body.next_cursor;
      }
      const all = await t.http.get('/api/skills?limit=100').set(as(alice.key));
      expect(seen).toEqual(all.body.items.map((s: { id: number }) => s.id));
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expectError(await t.http.get('/api/skills?limit=101').set(as(alice.key)), 400, 'VALIDATION_FAILED');
      expectError(await t.http.get('/api/skills?cursor=abc').set(as(alice.key)), 400, 'VALIDATION_FAILED');
    });
  });

  describe('deleting', () => {
    it('soft-deletes: the name is free again, ids are not reused, old versions are for admins only', async () => {
      const first = await publishSkill(t, bob, 'short-lived');
      expectError(await t.http.delete(`/api/skills/${first.id}`).set(as(alice.key)), 404, 'NOT_FOUND');
      expect((await t.http.delete(`/api/skills/${first.id}`).set(as(bob.key))).status).toBe(204);
      expectError(await t.http.get(`/api/skills/${first.id}`).set(as(bob.key)), 404, 'NOT_FOUND');
      expectError(await t.http.get(`/api/skills/${first.id}/download`).set(as(bob.key)), 404, 'NOT_FOUND');
      expectError(await t.http.delete(`/api/skills/${first.id}`).set(as(bob.key)), 404, 'NOT_FOUND');
      expectError(
        await publishVersion(t, bob, first.id, skillZip('short-lived', { description: 'x' })),
        404,
        'NOT_FOUND',
      );
      expect((await t.http.get(`/api/skills/${first.id}/download?version=1`).set(as(ADMIN_KEY))).status).toBe(200);

      const second = await publishSkill(t, bob, 'short-lived');
      expect(second.id).toBeGreaterThan(first.id);
      const listed = await t.http.get('/api/skills?name=short-lived').set(as(bob.key));
      expect(listed.body.items.map((s: { id: number }) => s.id)).toEqual([second.id]);
    });

    it('group skills are deleted by Maintainers or their creator; Reporters get 403', async () => {
      const skill = await publishSkill(t, dev, 'group-doomed', { namespace: 'team-a' });
      expectError(await t.http.delete(`/api/skills/${skill.id}`).set(as(rep.key)), 403, 'FORBIDDEN');
      expectError(await t.http.delete(`/api/skills/${skill.id}`).set(as(dev2.key)), 403, 'FORBIDDEN');
      expect((await t.http.delete(`/api/skills/${skill.id}`).set(as(maint.key))).status).toBe(204);
    });
  });
});
