import { MigrationInterface, QueryRunner } from 'typeorm';
import { parseToolPolicy, ToolPolicy } from '../src/policy';
import { parseSkillMd } from '../src/package/frontmatter';

/** Versions read per batch: each holds a SKILL.md of up to 1 MiB. */
const BATCH = 50;

interface StoredVersion {
  skill_id: number;
  version: number;
  skill_md: string;
  frontmatter: Record<string, unknown>;
}

/**
 * The tool policy of each version (docs/packages.md#tool-policy-fields): `allowed_tools` (null when the key is absent)
 * and `requires`. Versions already stored get theirs by re-parsing their SKILL.md text with the
 * parser publishing uses; a policy written before these rules that no longer parses keeps the valid
 * entries the parser returns (never more than the author wrote). Only a SKILL.md whose frontmatter
 * no longer parses at all (stricter YAML bounds) falls back to the frontmatter stored with it.
 */
export class ToolPolicy1796100000000 implements MigrationInterface {
  name = 'ToolPolicy1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "allowed_tools" jsonb`);
    await queryRunner.query(`ALTER TABLE "skill_versions" ADD "requires" jsonb`);
    let after = { skill_id: 0, version: 0 };
    for (;;) {
      // Keyset pages over the primary key: each batch costs its own rows, whatever the table holds.
      const rows = (await queryRunner.query(
        `SELECT "skill_id", "version", "skill_md", "frontmatter" FROM "skill_versions" WHERE ("skill_id", "version") > ($1, $2) ORDER BY "skill_id", "version" LIMIT ${BATCH}`,
        [after.skill_id, after.version],
      )) as StoredVersion[];
      if (rows.length === 0) break;
      const policies = rows.map(policyOf);
      await queryRunner.query(
        `UPDATE "skill_versions" v SET "allowed_tools" = p."allowed_tools", "requires" = p."requires"
           FROM unnest($1::int[], $2::int[], $3::jsonb[], $4::jsonb[]) AS p("skill_id", "version", "allowed_tools", "requires")
          WHERE v."skill_id" = p."skill_id" AND v."version" = p."version"`,
        [
          rows.map((r) => r.skill_id),
          rows.map((r) => r.version),
          policies.map((p) => (p.allowed_tools === null ? null : JSON.stringify(p.allowed_tools))),
          policies.map((p) => JSON.stringify(p.requires)),
        ],
      );
      after = rows[rows.length - 1];
    }
    await queryRunner.query(`ALTER TABLE "skill_versions" ALTER COLUMN "requires" SET NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "requires"`);
    await queryRunner.query(`ALTER TABLE "skill_versions" DROP COLUMN "allowed_tools"`);
  }
}

function policyOf(row: StoredVersion): ToolPolicy {
  const frontmatter = parseSkillMd(Buffer.from(row.skill_md, 'utf8'), null).frontmatter ?? row.frontmatter ?? {};
  const { allowed_tools, requires } = parseToolPolicy(frontmatter);
  return { allowed_tools, requires };
}
