import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The skill query of a resolution (ResolutionFactsRepository.loadSkills) as a function that runs
 * one generic plan per connection. As a prepared statement it was planned anew on every execution
 * (0.7 ms on PostgreSQL 15, more than running it): with arrays of unknown length, the generic
 * plan's estimate never looked cheaper than a custom plan's, though it runs as fast (one index
 * branch per way a skill is reached, whatever the arrays hold). `plan_cache_mode` is set for the
 * function's own statement only.
 */
export class ReachedSkillsFunction1796300000000 implements MigrationInterface {
  name = 'ReachedSkillsFunction1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION resolution_reached_skills(p_ids int[], p_names text[], p_groups text[], p_owners int[],
                                                p_versions int[])
        RETURNS TABLE (id int, name varchar, namespace varchar, is_public boolean, owner_user_id int,
                       deleted boolean, latest_version int, latest_hash varchar, latest_allowed_tools jsonb,
                       latest_requires jsonb, pinned json)
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
               s.latest_version, latest.content_hash, latest.allowed_tools, latest.requires,
               CASE WHEN cardinality(p_versions) > 0 THEN
                 (SELECT json_agg(json_build_object('version', v.version, 'content_hash', v.content_hash,
                                                    'allowed_tools', v.allowed_tools, 'requires', v.requires))
                    FROM skill_versions v WHERE v.skill_id = s.id AND v.version = ANY(p_versions))
               END
          FROM skills s
          JOIN reached r ON r.id = s.id
          JOIN skill_versions latest ON latest.skill_id = s.id AND latest.version = s.latest_version;
      END
      $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION resolution_reached_skills(int[], text[], text[], int[], int[])`);
  }
}
