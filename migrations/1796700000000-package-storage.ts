import { MigrationInterface, QueryRunner } from 'typeorm';
import { fileOffsets } from '../src/package/file-offsets';
import type { ManifestFile } from '../src/package/manifest';

const OLD_TARGET_TYPES = `'user', 'api_key', 'task_token', 'group', 'group_member', 'skill', 'skill_version', 'ghost', 'bot', 'team', 'subscription', 'task', 'execution_request', 'skill_binding', 'skill_tag'`;
const NEW_TARGET_TYPES = `${OLD_TARGET_TYPES}, 'blob'`;
const OLD_VERBS = ['create', 'update', 'delete', 'revoke', 'persist'];
const NEW_VERBS = [...OLD_VERBS, 'gc', 'purge'];

function actionCheck(verbs: string[]): string {
  return `CHECK ("action" IN (${verbs.map((verb) => `"target_type" || '.${verb}'`).join(', ')}))`;
}

/**
 * Package bytes may live outside the database (docs/storage.md): versions no longer refer to
 * `skill_blobs` by a foreign key (publish writes the bytes to the store first, then the version);
 * each version records where its files lie in its zip (`file_offsets`, computed here from the
 * stored bytes, one package at a time) and when its bytes were purged; the audit log takes
 * `blob.gc` and `skill_version.purge`. `down` needs every version's bytes back in the database
 * (`npm run blobs -- copy --to database`) and no audit event of the new kinds.
 */
export class PackageStorage1796700000000 implements MigrationInterface {
  name = 'PackageStorage1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP CONSTRAINT "skill_versions_content_hash_fkey"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "file_offsets" jsonb`);
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "bytes_purged_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_check" CHECK ("target_type" IN (${NEW_TARGET_TYPES}))`,
    );
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_check" ${actionCheck(NEW_VERBS)}`,
    );
    let after = '';
    for (;;) {
      const hashes = (await queryRunner.query(
        `SELECT DISTINCT "content_hash" FROM "skill_versions" WHERE "content_hash" > $1 ORDER BY 1 LIMIT 100`,
        [after],
      )) as Array<{ content_hash: string }>;
      if (hashes.length === 0) break;
      for (const { content_hash: hash } of hashes) await this.recordOffsets(queryRunner, hash);
      after = hashes[hashes.length - 1].content_hash;
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_check" ${actionCheck(OLD_VERBS)}`,
    );
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_check" CHECK ("target_type" IN (${OLD_TARGET_TYPES}))`,
    );
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "bytes_purged_at"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "file_offsets"`);
    await queryRunner.query(
      `ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_content_hash_fkey" FOREIGN KEY ("content_hash") REFERENCES "skill_blobs"("content_hash") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  /**
   * One package at a time, so memory stays at one package whatever the registry holds. Every
   * version with these bytes has the same skill name (it is inside them) and the same files. A
   * package that cannot be read keeps null offsets: its files are then read through its directory.
   */
  private async recordOffsets(queryRunner: QueryRunner, hash: string): Promise<void> {
    const [blob] = (await queryRunner.query(`SELECT "data" FROM "skill_blobs" WHERE "content_hash" = $1`, [hash])) as
      Array<{ data: Buffer }> | [];
    const [version] = (await queryRunner.query(
      `SELECT v."manifest", s."name" FROM "skill_versions" v JOIN "skills" s ON s."id" = v."skill_id"
        WHERE v."content_hash" = $1 LIMIT 1`,
      [hash],
    )) as Array<{ manifest: ManifestFile[]; name: string }>;
    const offsets = blob ? fileOffsets(blob.data, version.name, version.manifest) : null;
    if (offsets) {
      await queryRunner.query(`UPDATE "skill_versions" SET "file_offsets" = $1 WHERE "content_hash" = $2`, [
        JSON.stringify(offsets),
        hash,
      ]);
    }
  }
}
