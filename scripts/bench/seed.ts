// Writes the data set into a migrated database with a few bulk statements: each table's rows go
// in as parallel arrays through `unnest`, in one transaction.
import { Client } from 'pg';
import { hashSecret, SHOWN_PREFIX_LENGTH } from '../../src/auth/secrets';
import { Blob, blobs, Group, Membership, Skill, User, groups, memberships, users } from './catalog';
import { Bot, Execution, Ghost, Resources, Subscription, Task, Team } from './resources';

/** Rows per statement: keeps each message to a few megabytes. */
const CHUNK = 20_000;

type Column<R> = [name: string, pgType: string, value: (row: R) => unknown];

async function insertRows<R>(db: Client, table: string, columns: Column<R>[], rows: R[]): Promise<void> {
  const names = columns.map(([name]) => `"${name}"`).join(', ');
  const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  for (let at = 0; at < rows.length; at += CHUNK) {
    const chunk = rows.slice(at, at + CHUNK);
    const params = columns.map(([, , value]) => chunk.map(value));
    await db.query(`INSERT INTO "${table}" (${names}) SELECT * FROM unnest(${arrays})`, params);
  }
}

const json = (value: unknown): string => JSON.stringify(value);

/** Every skill layer in order; the ids of the first layers are shared by every scale. */
export async function seed(url: string, skillLayers: Skill[][], work: Resources): Promise<void> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('BEGIN');
    await seedPeople(db, users(), groups(), memberships());
    const packages = blobs();
    await insertRows<Blob>(
      db,
      'skill_blobs',
      [
        ['content_hash', 'text', (b) => b.contentHash],
        ['data', 'bytea', (b) => b.data],
        ['size', 'int', (b) => b.data.length],
      ],
      packages,
    );
    for (const layer of skillLayers) await seedSkills(db, layer, packages);
    await seedResources(db, work);
    await resetIdentities(db);
    await db.query('COMMIT');
    // Fresh statistics, as a database that has been running a while would have.
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

async function seedPeople(db: Client, people: User[], groupRows: Group[], members: Membership[]): Promise<void> {
  await insertRows<User>(
    db,
    'users',
    [
      ['id', 'int', (u) => u.id],
      ['user_name', 'text', (u) => u.name],
      ['role', 'text', () => 'user'],
    ],
    people,
  );
  await insertRows<User>(
    db,
    'api_keys',
    [
      ['id', 'int', (u) => u.id],
      ['user_id', 'int', (u) => u.id],
      ['key_hash', 'text', (u) => hashSecret(u.apiKey)],
      ['prefix', 'text', (u) => u.apiKey.slice(0, SHOWN_PREFIX_LENGTH)],
    ],
    people,
  );
  await insertRows<Group>(
    db,
    'groups',
    [
      ['id', 'int', (g) => g.id],
      ['name', 'text', (g) => g.name],
      ['parent_id', 'int', (g) => g.parentId],
    ],
    groupRows,
  );
  await insertRows<Membership>(
    db,
    'group_members',
    [
      ['group_id', 'int', (m) => m.groupId],
      ['user_id', 'int', (m) => m.userId],
      ['role', 'text', (m) => m.role],
    ],
    members,
  );
}

async function seedSkills(db: Client, skills: Skill[], packages: Blob[]): Promise<void> {
  await insertRows<Skill>(
    db,
    'skills',
    [
      ['id', 'int', (s) => s.id],
      ['name', 'text', (s) => s.name],
      ['namespace', 'text', (s) => s.namespace],
      ['is_public', 'bool', (s) => s.isPublic],
      ['owner_user_id', 'int', (s) => s.ownerUserId],
      ['created_by_user_id', 'int', (s) => s.createdByUserId],
      ['description', 'text', (s) => `Helps with ${s.name.replace('-', ' ')} work`],
      ['latest_version', 'int', (s) => s.latestVersion],
      ['deleted_at', 'timestamptz', (s) => (s.deleted ? new Date().toISOString() : null)],
    ],
    skills,
  );
  // Every version of the layer in one statement; a version's package is picked by (id + version).
  await db.query(
    `INSERT INTO skill_versions (skill_id, version, content_hash, revision, size, file_count, manifest, frontmatter,
                                 skill_md, created_by_user_id, requires)
     SELECT s.id, v.version, b.content_hash, b.revision, b.size, jsonb_array_length(b.manifest), b.manifest,
            jsonb_build_object('name', s.name, 'description', s.description), b.skill_md, s.created_by_user_id,
            '{"bins": [], "env": []}'::jsonb
       FROM skills s
      CROSS JOIN LATERAL generate_series(1, s.latest_version) AS v(version)
       JOIN unnest($3::text[], $4::text[], $5::int[], $6::jsonb[], $8::text[]) WITH ORDINALITY
            AS b(content_hash, revision, size, manifest, skill_md, ord) ON b.ord = (s.id + v.version) % $7 + 1
      WHERE s.id BETWEEN $1 AND $2`,
    [
      skills[0].id,
      skills[skills.length - 1].id,
      packages.map((p) => p.contentHash),
      packages.map((p) => p.revision),
      packages.map((p) => p.data.length),
      packages.map((p) => json(p.manifest)),
      packages.length,
      packages.map((p) => p.skillMd),
    ],
  );
}

async function seedResources(db: Client, work: Resources): Promise<void> {
  const scoped = <R extends Ghost | Bot | Team | Subscription>(): Column<R>[] => [
    ['id', 'int', (r) => r.id],
    ['name', 'text', (r) => r.name],
    ['namespace', 'text', (r) => r.namespace],
    ['owner_user_id', 'int', (r) => r.ownerUserId],
  ];
  await insertRows<Ghost>(
    db,
    'ghosts',
    [
      ...scoped<Ghost>(),
      ['skills', 'jsonb', (g) => json(g.skills)],
      ['preload_skills', 'jsonb', (g) => json(g.preloadSkills)],
      ['skill_refs', 'jsonb', (g) => json(g.skillRefs)],
      ['preload_skill_refs', 'jsonb', (g) => json(g.preloadSkillRefs)],
    ],
    work.ghosts,
  );
  await insertRows<Bot>(db, 'bots', [...scoped<Bot>(), ['ghost_id', 'int', (b) => b.ghostId]], work.bots);
  await insertRows<Team>(db, 'teams', [...scoped<Team>(), ['members', 'jsonb', (t) => json(t.members)]], work.teams);
  await insertRows<Subscription>(
    db,
    'subscriptions',
    [...scoped<Subscription>(), ['team_id', 'int', (s) => s.teamId], ['skill_refs', 'jsonb', (s) => json(s.skillRefs)]],
    work.subscriptions,
  );
  await insertRows<Task>(
    db,
    'tasks',
    [
      ['id', 'int', (t) => t.id],
      ['team_id', 'int', (t) => t.teamId],
      ['owner_user_id', 'int', (t) => t.ownerUserId],
      ['namespace', 'text', (t) => t.namespace],
      ['title', 'text', (t) => t.title],
      ['labels', 'jsonb', (t) => json(t.labels)],
    ],
    work.tasks,
  );
  await insertRows<Execution>(
    db,
    'background_executions',
    [
      ['id', 'int', (e) => e.id],
      ['task_id', 'int', (e) => e.taskId],
      ['subscription_id', 'int', (e) => e.subscriptionId],
      ['created_by_user_id', 'int', (e) => e.createdByUserId],
    ],
    work.executions,
  );
}

/** Rows were written with explicit ids: move each identity past them, as the API would have. */
async function resetIdentities(db: Client): Promise<void> {
  const tables = ['users', 'api_keys', 'groups', 'skills', 'ghosts', 'bots', 'teams', 'subscriptions', 'tasks'];
  for (const table of [...tables, 'background_executions']) {
    await db.query(
      `SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM "${table}"), false)`,
    );
  }
}
