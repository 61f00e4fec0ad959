// The migration that adds search indexes every active skill stored before it: its latest version's
// description and SKILL.md body, its name words and their variants; deleted skills stay out.
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { buildDataSourceOptions } from '../../src/schema/typeorm-options';
import { SkillSearchRepository } from '../../src/skills/search/skill-search.repository';
import { searchTerms } from '../../src/skills/search/search-terms';
import { emptyServerDatabase, isServerMode, TestDatabase } from '../support/database';

const onServer = isServerMode() ? describe : describe.skip;
const BEFORE = MIGRATIONS.findIndex((m) => m.name === 'SkillSearch1796060773662');

function dataSource(url: string, upTo: number): DataSource {
  return new DataSource({ ...buildDataSourceOptions({ url, poolSize: 1 }), migrations: MIGRATIONS.slice(0, upTo) });
}

onServer('migration: skill search', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await emptyServerDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('indexes the latest version of every active skill, a batch at a time', async () => {
    expect(BEFORE).toBeGreaterThan(0);
    const old = dataSource(db.url, BEFORE);
    await old.initialize();
    await old.runMigrations({ transaction: 'all' });
    await old.query(`INSERT INTO users (id, user_name, role) VALUES (1, 'owner', 'user')`);
    await old.query(`INSERT INTO skill_blobs (content_hash, data, size) VALUES ('sha256:x', '\\x00', 1)`);
    // 120 skills (more than one batch), the last deleted; skill 1 has two versions.
    for (let id = 1; id <= 120; id++) {
      await old.query(
        `INSERT INTO skills (id, name, namespace, owner_user_id, created_by_user_id, description, latest_version, deleted_at)
         VALUES ($1, $2, 'default', 1, 1, $3, $4, $5)`,
        [
          id,
          `legacy-tool-${id}`,
          id === 1 ? 'Forecasts from wombats.' : 'A legacy tool.',
          id === 1 ? 2 : 1,
          id === 120 ? new Date() : null,
        ],
      );
      const versions =
        id === 1
          ? [
              ['Forecasts from quokkas.', 'old body'],
              ['Forecasts from wombats.', 'Ask the numbat.'],
            ]
          : [['A legacy tool.', 'body']];
      for (const [i, [description, body]] of versions.entries()) {
        await old.query(
          `INSERT INTO skill_versions (skill_id, version, content_hash, revision, size, file_count, manifest, frontmatter, skill_md, created_by_user_id)
           VALUES ($1, $2, 'sha256:x', 'sha256:r', 1, 1, '[]', '{}', $3, 1)`,
          [id, i + 1, `---\nname: legacy-tool-${id}\ndescription: ${description}\n---\n${body}\n`],
        );
      }
    }
    await old.destroy();

    const current = dataSource(db.url, MIGRATIONS.length);
    await current.initialize();
    try {
      await current.runMigrations({ transaction: 'all' });
      const rows: Array<{ skill_id: number; version: number; name_word_count: number }> = await current.query(
        `SELECT skill_id, version, name_word_count FROM skill_search ORDER BY skill_id`,
      );
      expect(rows.map((r) => r.skill_id)).toEqual(Array.from({ length: 119 }, (_, i) => i + 1));
      expect(rows[0]).toEqual({ skill_id: 1, version: 2, name_word_count: 3 });

      const find = async (q: string): Promise<number[]> => {
        const filter = { terms: searchTerms(q), readerUserId: 1, readableGroups: [], minScore: 0, limit: 50 };
        const query = await SkillSearchRepository.prepare(current, filter.terms);
        if (!query) return [];
        const { sql, parameters } = SkillSearchRepository.statement(filter, query);
        return (await current.query<Array<{ skill_id: number }>>(sql, parameters)).map((r) => r.skill_id);
      };
      expect(await find('wombat')).toEqual([1]);
      expect(await find('numbat')).toEqual([1]);
      expect(await find('quokka')).toEqual([]);
      expect(await find('legacy tool 119')).toEqual(expect.arrayContaining([119]));
      expect(await find('legacy tool 120')).not.toContain(120);
    } finally {
      await current.destroy();
    }
  });
});
