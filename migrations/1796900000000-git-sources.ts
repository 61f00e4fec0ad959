import { MigrationInterface, QueryRunner } from 'typeorm';

const OLD_TARGET_TYPES = `'user', 'api_key', 'task_token', 'group', 'group_member', 'skill', 'skill_version', 'ghost', 'bot', 'team', 'subscription', 'task', 'execution_request', 'skill_binding', 'skill_tag', 'blob'`;
const NEW_TARGET_TYPES = `${OLD_TARGET_TYPES}, 'skill_source'`;
const OLD_VERBS = ['create', 'update', 'delete', 'revoke', 'persist', 'gc', 'purge'];
const NEW_VERBS = [...OLD_VERBS, 'import', 'check'];

function actionCheck(verbs: string[]): string {
  return `CHECK ("action" IN (${verbs.map((verb) => `"target_type" || '.${verb}'`).join(', ')}))`;
}

/**
 * Skills imported from git (docs/publishing.md#importing-from-git): each version published from a
 * repository records where it came from (`skill_versions.source`, never changed afterwards); a
 * skill's source and the last drift check live in their own table, one row per skill that has
 * one, so the checks write no row the resolver reads. The audit log takes `skill.import`,
 * `skill_source.check` and `skill_source.update`. `down` needs no audit event of the new kinds.
 */
export class GitSources1796900000000 implements MigrationInterface {
  name = 'GitSources1796900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "source" jsonb`);
    await queryRunner.query(
      `CREATE TABLE "skill_sources" ("skill_id" integer NOT NULL, "url" text NOT NULL, "ref" text NOT NULL, "path" text NOT NULL, "commit" character varying(64) NOT NULL, "tree_id" character varying(64), "latest_commit" character varying(64), "behind" boolean, "checked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "skill_sources_pkey" PRIMARY KEY ("skill_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "skill_sources" ADD CONSTRAINT "skill_sources_skill_id_fkey" FOREIGN KEY ("skill_id") REFERENCES "skills"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_check" CHECK ("target_type" IN (${NEW_TARGET_TYPES}))`,
    );
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_action_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_action_check" ${actionCheck(NEW_VERBS)}`,
    );
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
    await queryRunner.query(`DROP TABLE "skill_sources"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "source"`);
  }
}
