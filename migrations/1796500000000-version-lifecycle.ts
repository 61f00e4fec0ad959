import { MigrationInterface, QueryRunner } from 'typeorm';
import { ReachedSkillsFunction1796300000000 } from './1796300000000-reached-skills-function';

const OLD_TARGET_TYPES = `'user', 'api_key', 'task_token', 'group', 'group_member', 'skill', 'skill_version', 'ghost', 'bot', 'team', 'subscription', 'task', 'execution_request', 'skill_binding'`;
const NEW_TARGET_TYPES = `'user', 'api_key', 'task_token', 'group', 'group_member', 'skill', 'skill_version', 'ghost', 'bot', 'team', 'subscription', 'task', 'execution_request', 'skill_binding', 'skill_tag'`;

/**
 * The version lifecycle (docs/resolution.md#version-lifecycle): a status on every version, named
 * tags, and a resolution skill query that gives the resolver what it decides `latest` and tags
 * from. Every existing version is `active`. A tag write notifies every cache, as a version write does.
 */
export class VersionLifecycle1796500000000 implements MigrationInterface {
  name = 'VersionLifecycle1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "status" text NOT NULL DEFAULT 'active'`);
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "status_message" character varying(500)`);
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "status_changed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_status_check" CHECK ("status" IN ('active', 'deprecated', 'yanked', 'revoked'))`,
    );
    await queryRunner.query(
      `CREATE TABLE "skill_tags" ("skill_id" integer NOT NULL, "tag" character varying(32) NOT NULL, "version" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "skill_tags_pkey" PRIMARY KEY ("skill_id", "tag"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "skill_tags" ADD CONSTRAINT "skill_tags_version_fkey" FOREIGN KEY ("skill_id", "version") REFERENCES "skill_versions"("skill_id","version") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TRIGGER skill_tags_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "skill_tags"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_check" CHECK ("target_type" IN (${NEW_TARGET_TYPES}))`,
    );
    await queryRunner.query(`DROP FUNCTION resolution_reached_skills(int[], text[], text[], int[], int[])`);
    // Versions loaded per skill: the pinned ones asked for, the tagged ones, and every version from
    // the newest active-or-deprecated one up (only the newest when there is none), so that the
    // resolver's latestFollowable picks `latest` from rows that always hold it.
    await queryRunner.query(`
      CREATE FUNCTION resolution_reached_skills(p_ids int[], p_names text[], p_groups text[], p_owners int[],
                                                p_versions int[])
        RETURNS TABLE (id int, name varchar, namespace varchar, is_public boolean, owner_user_id int,
                       deleted boolean, versions json, tags json)
        LANGUAGE plpgsql STABLE
        SET plan_cache_mode = force_generic_plan
      AS $$
      #variable_conflict use_column
      BEGIN
        RETURN QUERY
        WITH reached AS (
               SELECT s.id FROM skills s WHERE s.id = ANY(p_ids)
               UNION SELECT s.id FROM skills s WHERE s.is_public AND s.name = ANY(p_names)
               UNION SELECT s.id FROM skills s WHERE s.namespace = ANY(p_groups) AND s.name = ANY(p_names)
               UNION SELECT s.id FROM skills s
                      WHERE s.namespace = 'default' AND NOT s.is_public
                        AND s.owner_user_id = ANY(p_owners) AND s.name = ANY(p_names))
        SELECT s.id, s.name, s.namespace, s.is_public, s.owner_user_id, s.deleted_at IS NOT NULL,
               (SELECT json_agg(json_build_object('version', v.version, 'content_hash', v.content_hash,
                                                  'allowed_tools', v.allowed_tools, 'requires', v.requires,
                                                  'status', v.status))
                  FROM skill_versions v
                 WHERE v.skill_id = s.id
                   AND (v.version >= COALESCE((SELECT max(f.version) FROM skill_versions f
                                                WHERE f.skill_id = s.id AND f.status IN ('active', 'deprecated')),
                                              s.latest_version)
                        OR v.version = ANY(p_versions)
                        OR v.version IN (SELECT t.version FROM skill_tags t WHERE t.skill_id = s.id))),
               (SELECT json_object_agg(t.tag, t.version) FROM skill_tags t WHERE t.skill_id = s.id)
          FROM skills s
          JOIN reached r ON r.id = s.id;
      END
      $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION resolution_reached_skills(int[], text[], text[], int[], int[])`);
    await new ReachedSkillsFunction1796300000000().up(queryRunner);
    await queryRunner.query(`DELETE FROM "audit_events" WHERE "target_type" = 'skill_tag'`);
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_target_type_check"`);
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_target_type_check" CHECK ("target_type" IN (${OLD_TARGET_TYPES}))`,
    );
    await queryRunner.query(`DROP TRIGGER skill_tags_notify_change ON "skill_tags"`);
    await queryRunner.query(`ALTER TABLE "skill_tags" DROP CONSTRAINT "skill_tags_version_fkey"`);
    await queryRunner.query(`DROP TABLE "skill_tags"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP CONSTRAINT "skill_versions_status_check"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "status_changed_at"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "status_message"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "status"`);
  }
}
