import { MigrationInterface, QueryRunner } from 'typeorm';

// A new task token changes no cached answer: no request has presented it yet, so no replica holds
// a verified credential or a resolution for it. Minting one (an INSERT) notifies nothing; revoking
// (an UPDATE) and deleting still notify every replica, as before (see src/cache).
export class NarrowTokenNotifications1796600000000 implements MigrationInterface {
  name = 'NarrowTokenNotifications1796600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER task_tokens_notify_change ON "task_tokens"`);
    await queryRunner.query(
      `CREATE TRIGGER task_tokens_notify_change AFTER UPDATE OR DELETE OR TRUNCATE ON "task_tokens"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER task_tokens_notify_change ON "task_tokens"`);
    await queryRunner.query(
      `CREATE TRIGGER task_tokens_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "task_tokens"
         FOR EACH STATEMENT EXECUTE FUNCTION skill_resolver_notify_change()`,
    );
  }
}
