import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a team gives each of its tasks (its ghosts in member order, the ghost ids its bots point at,
 * the ghosts' owners, and the bindings of its group's lineage) as a function the task statement
 * calls only when the replica does not keep the team already (ResolutionFactsRepository). In the
 * statement itself those branches were initialised, and their hash tables built, on every
 * execution, also when they read nothing: about a third of PostgreSQL's time for a task whose team
 * is kept. Each lookup goes through its primary key (LIMIT 1 keeps it a per-row index scan instead
 * of a hash of every bot and ghost). `plan_cache_mode` is set for the function's own statement.
 */
export class TeamFactsFunction1796800000000 implements MigrationInterface {
  name = 'TeamFactsFunction1796800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION resolution_team_facts(p_members jsonb, p_namespace text)
        RETURNS json
        LANGUAGE plpgsql STABLE
        SET plan_cache_mode = force_generic_plan
      AS $$
      DECLARE
        facts json;
      BEGIN
        WITH member AS (SELECT m.ord,
                               CASE WHEN m.elem->>'bot_id' ~ '^[0-9]{1,10}$' THEN (m.elem->>'bot_id')::bigint END AS bot_id
                          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_members) = 'array'
                                                         THEN p_members ELSE '[]'::jsonb END)
                               WITH ORDINALITY AS m(elem, ord)),
             mb AS (SELECT member.ord, b.ghost_id, b.deleted
                      FROM member
                      CROSS JOIN LATERAL (SELECT b.ghost_id, b.deleted_at IS NOT NULL AS deleted
                                            FROM bots b WHERE b.id = member.bot_id LIMIT 1) b),
             gh AS (SELECT mb.ord, g.owner_user_id, g.skills, g.preload_skills, g.skill_refs, g.preload_skill_refs
                      FROM mb
                      CROSS JOIN LATERAL (SELECT g.owner_user_id, g.skills, g.preload_skills, g.skill_refs,
                                                 g.preload_skill_refs
                                            FROM ghosts g WHERE g.id = mb.ghost_id AND g.deleted_at IS NULL LIMIT 1) g
                     WHERE NOT mb.deleted),
             bd AS (SELECT b.id, b.skill_id, NULL::int AS user_id, g.name AS group_name, b.preload, b.exceptions
                      FROM groups g
                      JOIN skill_bindings b ON b.group_id = g.id
                     WHERE g.name = ANY(array(
                             SELECT array_to_string((string_to_array(p_namespace, '/'))[1:i], '/')
                               FROM generate_series(1, cardinality(string_to_array(p_namespace, '/'))) i))),
             bound AS (SELECT bd.*, s.name, s.namespace, s.is_public
                         FROM bd CROSS JOIN LATERAL (SELECT s.name, s.namespace, s.is_public FROM skills s
                                                      WHERE s.id = bd.skill_id AND s.deleted_at IS NULL LIMIT 1) s)
        SELECT json_build_object(
                 'ghosts', (SELECT json_agg(gh ORDER BY gh.ord) FROM gh),
                 'ghost_ids', (SELECT array_agg(DISTINCT mb.ghost_id) FROM mb),
                 'owners', (SELECT coalesce(array_agg(DISTINCT gh.owner_user_id), '{}') FROM gh),
                 'bindings', (SELECT coalesce(json_agg(bound), '[]') FROM bound))
          INTO facts;
        RETURN facts;
      END
      $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION resolution_team_facts(jsonb, text)`);
  }
}
