import { MigrationInterface, QueryRunner } from 'typeorm';
import { writeSearchDocument } from '../src/skills/search/search-document';

/**
 * Search (docs/search.md): one document per active skill, with GIN indexes on the name's words and
 * their one-edit variants, the description and the SKILL.md body, and a btree on its scope, so a
 * query reads the index entries of its words and of the reader's scopes, never every skill. Core PostgreSQL only (no extension), the same on
 * PGlite and on a server. Skills stored before are indexed here, a batch at a time.
 */
export class SkillSearch1796060773662 implements MigrationInterface {
  name = 'SkillSearch1796060773662';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "skill_search" ("skill_id" integer NOT NULL, "version" integer NOT NULL, "namespace" character varying(200) NOT NULL, "is_public" boolean NOT NULL, "owner_user_id" integer, "scope_key" character varying(210) NOT NULL, "name" character varying(64) NOT NULL, "name_word_count" smallint NOT NULL, "name_variants" text array NOT NULL, "name_vector" tsvector NOT NULL, "description_vector" tsvector NOT NULL, "body_vector" tsvector NOT NULL, CONSTRAINT "skill_search_pkey" PRIMARY KEY ("skill_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "skill_search" ADD CONSTRAINT "skill_search_skill_id_fkey" FOREIGN KEY ("skill_id") REFERENCES "skills"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`CREATE INDEX "skill_search_scope_key_idx" ON "skill_search" ("scope_key") `);
    // Without the pending list (fastupdate): every search would read it whole until a vacuum merged
    // it, while a publish adds one row at a time.
    for (const column of ['name_vector', 'name_variants', 'description_vector', 'body_vector']) {
      await queryRunner.query(
        `CREATE INDEX "skill_search_${column}_idx" ON "skill_search" USING gin ("${column}") WITH (fastupdate = off)`,
      );
    }
    let after = 0;
    for (;;) {
      // A few rows at a time: a SKILL.md may weigh up to 1 MiB.
      const rows = (await queryRunner.query(
        `SELECT s."id", s."name", s."namespace", s."is_public", s."owner_user_id", s."description", s."latest_version", v."skill_md"
           FROM "skills" s JOIN "skill_versions" v ON v."skill_id" = s."id" AND v."version" = s."latest_version"
          WHERE s."deleted_at" IS NULL AND s."id" > $1 ORDER BY s."id" LIMIT 50`,
        [after],
      )) as Array<{
        id: number;
        name: string;
        namespace: string;
        is_public: boolean;
        owner_user_id: number | null;
        description: string;
        latest_version: number;
        skill_md: string;
      }>;
      if (rows.length === 0) break;
      for (const row of rows) {
        await writeSearchDocument(queryRunner, {
          skillId: row.id,
          version: row.latest_version,
          name: row.name,
          namespace: row.namespace,
          isPublic: row.is_public,
          ownerUserId: row.owner_user_id,
          description: row.description,
          skillMd: row.skill_md,
        });
      }
      after = rows[rows.length - 1].id;
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "skill_search"`);
  }
}
