import { MigrationInterface, QueryRunner } from 'typeorm';

// Two writes no longer empty every cache (see src/cache): a new task, which no cached
// answer can depend on, notifies nothing; a ghost's row notifies `ghost:<id>`, so only the answers
// that read that ghost are dropped. A new ghost is on no team until a bot names it (a bots write,
// which notifies everyone), so it notifies nothing either. Every other write is as before.
export class NarrowChangeNotifications1796200000000 implements MigrationInterface {
  name = 'NarrowChangeNotifications1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION skill_resolver_notify_ghost_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id THEN
          PERFORM pg_notify('skill_resolver_changes', '');
        ELSE
          PERFORM pg_notify('skill_resolver_changes', 'ghost:' || OLD.id);
        END IF;
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`DROP TRIGGER ghosts_notify_change ON "ghosts"`);
    await queryRunner.query(
      `CREATE TRIGGER ghosts_notify_change AFTER TRUNCATE ON "ghosts"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER ghosts_notify_row_change AFTER UPDATE OR DELETE ON "ghosts"
         FOR EACH ROW EXECUTE FUNCTION skill_resolver_notify_ghost_change()`,
    );
    await queryRunner.query(`DROP TRIGGER tasks_notify_change ON "tasks"`);
    await queryRunner.query(
      `CREATE TRIGGER tasks_notify_change AFTER UPDATE OR DELETE OR TRUNCATE ON "tasks"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER tasks_notify_change ON "tasks"`);
    await queryRunner.query(
      `CREATE TRIGGER tasks_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tasks"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
    await queryRunner.query(`DROP TRIGGER ghosts_notify_row_change ON "ghosts"`);
    await queryRunner.query(`DROP TRIGGER ghosts_notify_change ON "ghosts"`);
    await queryRunner.query(
      `CREATE TRIGGER ghosts_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "ghosts"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
    await queryRunner.query(`DROP FUNCTION skill_resolver_notify_ghost_change()`);
  }
}
