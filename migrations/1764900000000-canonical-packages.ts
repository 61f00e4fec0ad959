import { MigrationInterface, QueryRunner } from 'typeorm';
import type { ManifestFile } from '../src/package/manifest';
import { rebuildStoredPackage, StoredPackageError } from '../src/package/stored-package';

/**
 * Stored packages become canonical (docs/packages.md#canonical-form): each version's zip is rebuilt from the files of
 * its manifest, `content_hash` and `size` follow the new bytes (stored refs carry no hash, so they
 * follow too), and the SKILL.md text is kept beside the version. Old blobs no version uses are
 * removed; `down` keeps the canonical bytes, which are valid packages of the same files.
 */
export class CanonicalPackages1764900000000 implements MigrationInterface {
  name = 'CanonicalPackages1764900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "skill_md" text`);
    let after = '';
    for (;;) {
      // One old blob at a time, so memory stays at one package whatever the registry holds.
      const hashes = (await queryRunner.query(
        `SELECT DISTINCT "content_hash" FROM "skill_versions" WHERE "skill_md" IS NULL AND "content_hash" > $1 ORDER BY 1 LIMIT 100`,
        [after],
      )) as Array<{ content_hash: string }>;
      if (hashes.length === 0) break;
      for (const { content_hash: oldHash } of hashes) await this.rebuild(queryRunner, oldHash);
      after = hashes[hashes.length - 1].content_hash;
    }
    await queryRunner.query(`ALTER TABLE "skill_versions" ALTER COLUMN "skill_md" SET NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "skill_md"`);
  }

  private async rebuild(queryRunner: QueryRunner, oldHash: string): Promise<void> {
    const [blob] = (await queryRunner.query(`SELECT "data" FROM "skill_blobs" WHERE "content_hash" = $1`, [
      oldHash,
    ])) as Array<{ data: Buffer }>;
    const versions = (await queryRunner.query(
      `SELECT v."skill_id", v."version", v."manifest", s."name" FROM "skill_versions" v JOIN "skills" s ON s."id" = v."skill_id" WHERE v."content_hash" = $1 AND v."skill_md" IS NULL`,
      [oldHash],
    )) as Array<{ skill_id: number; version: number; manifest: ManifestFile[]; name: string }>;
    for (const v of versions) {
      let rebuilt: ReturnType<typeof rebuildStoredPackage>;
      try {
        rebuilt = rebuildStoredPackage(blob.data, v.name, v.manifest);
      } catch (err) {
        if (!(err instanceof StoredPackageError)) throw err;
        throw new Error(`skill ${v.skill_id} version ${v.version} cannot be made canonical: ${err.message}`, {
          cause: err,
        });
      }
      await queryRunner.query(
        `INSERT INTO "skill_blobs" ("content_hash", "data", "size") VALUES ($1, $2, $3) ON CONFLICT ("content_hash") DO NOTHING`,
        [rebuilt.contentHash, rebuilt.canonical, rebuilt.canonical.length],
      );
      await queryRunner.query(
        `UPDATE "skill_versions" SET "content_hash" = $1, "size" = $2, "skill_md" = $3 WHERE "skill_id" = $4 AND "version" = $5`,
        [rebuilt.contentHash, rebuilt.canonical.length, rebuilt.skillMd, v.skill_id, v.version],
      );
    }
    await queryRunner.query(
      `DELETE FROM "skill_blobs" WHERE "content_hash" = $1 AND NOT EXISTS (SELECT 1 FROM "skill_versions" WHERE "content_hash" = $1)`,
      [oldHash],
    );
  }
}
