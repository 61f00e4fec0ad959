// The migration that makes stored packages canonical: versions stored as uploaded are rebuilt from
// their manifests, their hashes follow, SKILL.md is kept, and old blobs go.
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { buildDataSourceOptions } from '../../src/schema/typeorm-options';
import { inspectPackage } from '../../src/package/inspect-package';
import { emptyServerDatabase, isServerMode, TestDatabase } from '../support/database';
import { buildZip } from '../support/zip-builder';
import { DEFAULT_LIMITS as LIMITS } from '../support/package-limits';

const onServer = isServerMode() ? describe : describe.skip;
const sha = (data: Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;
const BEFORE = MIGRATIONS.findIndex((m) => m.name === 'CanonicalPackages1764900000000');

function dataSource(url: string, upTo: number): DataSource {
  return new DataSource({ ...buildDataSourceOptions({ url, poolSize: 1 }), migrations: MIGRATIONS.slice(0, upTo) });
}

onServer('migration: canonical stored packages', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await emptyServerDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('rebuilds every stored version from its manifest and removes the uploaded bytes', async () => {
    const skillMd = '---\nname: legacy\ndescription: Stored as uploaded.\n---\n# Legacy\n';
    const md2 = skillMd.replace('Stored as uploaded.', 'Version two.');
    const rootEntries = [
      { path: 'SKILL.md', data: md2 },
      { path: 'notes.md', data: 'n' },
    ];
    const uploads = [
      // As an older release stored them: folders, descriptors, __MACOSX, a comment.
      buildZip(
        [
          { path: 'legacy/', directory: true },
          { path: 'legacy/SKILL.md', data: skillMd, descriptor: true },
          { path: 'legacy/run.sh', data: '#!/bin/sh\n', mode: 0o100755 },
          { path: '__MACOSX/legacy/._run.sh', data: 'fork' },
        ],
        { comment: Buffer.from('made by hand') },
      ),
      // SKILL.md at the root after a stub, which the strict reader now refuses but an older one took.
      buildZip(rootEntries, { prefix: Buffer.from('#!/bin/sh\n') }),
    ];
    // The manifests the older reader recorded: the same files as without the stub.
    const manifests = [inspectPackage(uploads[0], LIMITS).files, inspectPackage(buildZip(rootEntries), LIMITS).files];
    expect(manifests.map((m) => m.length)).toEqual([2, 2]);

    const old = dataSource(db.url, BEFORE);
    await old.initialize();
    await old.runMigrations({ transaction: 'all' });
    await old.query(`INSERT INTO users (id, user_name, role) VALUES (1, 'owner', 'user')`);
    await old.query(
      `INSERT INTO skills (id, name, namespace, owner_user_id, created_by_user_id, description, latest_version) VALUES (1, 'legacy', 'default', 1, 1, 'd', 3)`,
    );
    for (const upload of uploads) {
      await old.query(`INSERT INTO skill_blobs (content_hash, data, size) VALUES ($1, $2, $3)`, [
        sha(upload),
        upload,
        upload.length,
      ]);
    }
    // Versions 1 and 3 share the first upload's bytes.
    for (const [version, index] of [
      [1, 0],
      [2, 1],
      [3, 0],
    ]) {
      await old.query(
        `INSERT INTO skill_versions (skill_id, version, content_hash, revision, size, file_count, manifest, frontmatter, created_by_user_id) VALUES (1, $1, $2, 'sha256:r', $3, $4, $5, '{}', 1)`,
        [
          version,
          sha(uploads[index]),
          uploads[index].length,
          manifests[index].length,
          JSON.stringify(manifests[index]),
        ],
      );
    }
    await old.destroy();

    const current = dataSource(db.url, MIGRATIONS.length);
    await current.initialize();
    await current.runMigrations({ transaction: 'all' });
    const versions: Array<{ version: number; content_hash: string; size: number; skill_md: string }> =
      await current.query(`SELECT version, content_hash, size, skill_md FROM skill_versions ORDER BY version`);
    const blobs: Array<{ content_hash: string; data: Buffer }> = await current.query(
      `SELECT content_hash, data FROM skill_blobs ORDER BY content_hash`,
    );
    await current.destroy();

    // The first upload rebuilds exactly as a new publish of it would store it.
    const expected = inspectPackage(uploads[0], LIMITS).canonical!;
    expect(versions[0]).toEqual({ version: 1, content_hash: sha(expected), size: expected.length, skill_md: skillMd });
    expect(versions[2]).toEqual({ ...versions[0], version: 3 });
    expect(versions[1].skill_md).toBe(md2);
    expect(blobs.map((b) => b.content_hash).sort()).toEqual(
      [versions[0].content_hash, versions[1].content_hash].sort(),
    );
    for (const blob of blobs) {
      expect(sha(blob.data)).toBe(blob.content_hash);
      const again = inspectPackage(blob.data, LIMITS);
      expect(again.errors).toEqual([]);
      expect(again.canonical!.equals(blob.data)).toBe(true);
      expect(again.name).toBe('legacy');
    }
  });
});
