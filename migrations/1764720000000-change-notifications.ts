import { MigrationInterface, QueryRunner } from 'typeorm';

// Every write that can change an answer notifies `skill_resolver_changes` at commit, so replicas
// drop what they cached (see src/cache). Bookkeeping columns (api_keys.last_used_at) do not.
const TABLES = [
  'users',
  'groups',
  'group_members',
  'skills',
  'skill_versions',
  'ghosts',
  'bots',
  'teams',
  'tasks',
  'subscriptions',
  'background_executions',
  'task_tokens',
];

export class ChangeNotifications1764720000000 implements MigrationInterface {
  name = 'ChangeNotifications1764720000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION skill_resolver_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('skill_resolver_changes', '');
        RETURN NULL;
      END
      $$`);
    for (const table of TABLES) {
      await queryRunner.query(
        `CREATE TRIGGER ${table}_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}"
           FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
      );
    }
    await queryRunner.query(
      `CREATE TRIGGER api_keys_notify_change AFTER INSERT OR DELETE OR TRUNCATE ON "api_keys"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER api_keys_notify_credential_change AFTER UPDATE ON "api_keys" FOR EACH ROW
         WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.key_hash IS DISTINCT FROM NEW.key_hash
               OR OLD.user_id IS DISTINCT FROM NEW.user_id)
         EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER api_keys_notify_credential_change ON "api_keys"`);
    await queryRunner.query(`DROP TRIGGER api_keys_notify_change ON "api_keys"`);
    for (const table of [...TABLES].reverse()) {
      await queryRunner.query(`DROP TRIGGER ${table}_notify_change ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION skill_resolver_notify_change()`);
  }
}
