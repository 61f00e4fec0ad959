// The migration that stores each version's tool policy: versions already stored are re-parsed
// from their SKILL.md text with the parser publishing uses.
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { buildDataSourceOptions } from '../../src/schema/typeorm-options';
import { emptyServerDatabase, isServerMode, TestDatabase } from '../support/database';

const onServer = isServerMode() ? describe : describe.skip;
const BEFORE = MIGRATIONS.findIndex((m) => m.name === 'ToolPolicy1796100000000');

function dataSource(url: string, upTo: number): DataSource {
  return new DataSource({ ...buildDataSourceOptions({ url, poolSize: 1 }), migrations: MIGRATIONS.slice(0, upTo) });
}

const md = (frontmatter: string): string =>
  `---\nname: legacy\ndescription: Stored before the policy.\n${frontmatter}\n---\n# Legacy\n`;

/** SKILL.md of each stored version, the frontmatter stored beside it, and the policy expected. */
const VERSIONS: Array<{ skillMd: string; frontmatter: object; allowed_tools: string[] | null; requires: object }> = [
  {
    skillMd: md(
      'allowed-tools: Bash(git:*) Bash(python *) Read\nmetadata:\n  vikingbot:\n    requires:\n      bins: [python3, git]\n      env: [GITHUB_TOKEN]',
    ),
    frontmatter: {},
    allowed_tools: ['Bash(git:*)', 'Bash(python *)', 'Read'],
    requires: { bins: ['git', 'python3'], env: ['GITHUB_TOKEN'] },
  },
  { skillMd: md(''), frontmatter: {}, allowed_tools: null, requires: { bins: [], env: [] } },
  {
    skillMd: md('metadata: {"openclaw": {"requires": {"bins": ["jq"]}}}'),
    frontmatter: {},
    allowed_tools: null,
    requires: { bins: ['jq'], env: [] },
  },
  // Written before these rules: the bad entries are dropped, the valid ones kept (never wider).
  {
    skillMd: md('allowed-tools: Read Bash() Write(\nmetadata:\n  requires: {bins: [git, /bin/sh], env: [HOME, 1BAD]}'),
    frontmatter: {},
    allowed_tools: ['Read'],
    requires: { bins: ['git'], env: ['HOME'] },
  },
  { skillMd: md('allowed-tools: ""'), frontmatter: {}, allowed_tools: [], requires: { bins: [], env: [] } },
  // A frontmatter that no longer parses (over 64 KiB): the frontmatter stored with the version decides.
  {
    skillMd: md(`allowed-tools: Read\nnotes: "${'n'.repeat(64 * 1024)}"`),
    frontmatter: { name: 'legacy', 'allowed-tools': 'Read Grep' },
    allowed_tools: ['Read', 'Grep'],
    requires: { bins: [], env: [] },
  },
];

onServer('migration: the tool policy of stored versions', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await emptyServerDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('fills allowed_tools and requires of every version from its SKILL.md, across batches', async () => {
    const old = dataSource(db.url, BEFORE);
    await old.initialize();
    await old.runMigrations({ transaction: 'all' });
    await old.query(`INSERT INTO users (id, user_name, role) VALUES (1, 'owner', 'user')`);
    await old.query(`INSERT INTO skill_blobs (content_hash, data, size) VALUES ('sha256:b', '\\x00', 1)`);
    // More versions than one batch of the migration, spread over two skills.
    const rows: Array<{ skill: number; version: number; index: number }> = [];
    for (let i = 0; i < 120; i++)
      rows.push({ skill: 1 + (i % 2), version: 1 + Math.floor(i / 2), index: i % VERSIONS.length });
    for (const skill of [1, 2]) {
      await old.query(
        `INSERT INTO skills (id, name, namespace, owner_user_id, created_by_user_id, description, latest_version) VALUES ($1, $2, 'default', 1, 1, 'd', 60)`,
        [skill, `legacy-${skill}`],
      );
    }
    for (const row of rows) {
      const v = VERSIONS[row.index];
      await old.query(
        `INSERT INTO skill_versions (skill_id, version, content_hash, revision, size, file_count, manifest, frontmatter, skill_md, created_by_user_id) VALUES ($1, $2, 'sha256:b', 'sha256:r', 1, 1, '[]', $3, $4, 1)`,
        [row.skill, row.version, JSON.stringify(v.frontmatter), v.skillMd],
      );
    }
    await old.destroy();

    const current = dataSource(db.url, MIGRATIONS.length);
    await current.initialize();
    await current.runMigrations({ transaction: 'all' });
    const stored: Array<{ skill_id: number; version: number; allowed_tools: string[] | null; requires: object }> =
      await current.query(
        `SELECT skill_id, version, allowed_tools, requires FROM skill_versions ORDER BY skill_id, version`,
      );
    const nullable: Array<{ is_nullable: string; column_name: string }> = await current.query(
      `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = 'skill_versions' AND column_name IN ('allowed_tools', 'requires') ORDER BY column_name`,
    );
    await current.destroy();

    expect(stored).toHaveLength(rows.length);
    const expected = rows
      .map((row) => ({
        skill_id: row.skill,
        version: row.version,
        allowed_tools: VERSIONS[row.index].allowed_tools,
        requires: VERSIONS[row.index].requires,
      }))
      .sort((a, b) => a.skill_id - b.skill_id || a.version - b.version);
    expect(stored).toEqual(expected);
    expect(nullable).toEqual([
      { column_name: 'allowed_tools', is_nullable: 'YES' },
      { column_name: 'requires', is_nullable: 'NO' },
    ]);
  });
});
