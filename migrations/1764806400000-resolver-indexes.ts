import { MigrationInterface, QueryRunner } from 'typeorm';

export class ResolverIndexes1764806400000 implements MigrationInterface {
  name = 'ResolverIndexes1764806400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "skills_public_name_idx" ON "skills"  ("name") WHERE "is_public"`);
    await queryRunner.query(`CREATE INDEX "skills_owner_name_idx" ON "skills"  ("owner_user_id", "name") `);
    await queryRunner.query(`CREATE INDEX "skills_namespace_name_idx" ON "skills"  ("namespace", "name") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."skills_namespace_name_idx"`);
    await queryRunner.query(`DROP INDEX "public"."skills_owner_name_idx"`);
    await queryRunner.query(`DROP INDEX "public"."skills_public_name_idx"`);
  }
}
