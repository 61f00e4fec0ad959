// GET /api/skills/search (docs/search.md): relevance over a realistic catalog, access, order, the
// index kept with every publish, version and delete, bad input, and the plan using the indexes.
import { DataSource } from 'typeorm';
import { queryWithLocalSettings } from '../../src/database/prepared-query';
import { SEARCH_PLANNER_SETTINGS, SkillSearchRepository } from '../../src/skills/search/skill-search.repository';
import { searchTerms } from '../../src/skills/search/search-terms';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { CATALOG, QUERIES } from '../support/search-catalog';
import { publishSkill, publishVersion } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

interface Hit {
  skill_id: number;
  name: string;
  namespace: string;
  is_public: boolean;
  score: number;
}

describe('skill search', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let bob: TestUser;
  const ids = new Map<string, number>();

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    [alice, bob] = await Promise.all(['alice', 'bob'].map((n) => createUser(t, n)));
    for (const skill of CATALOG) {
      const body = await publishSkill(t, ADMIN_KEY, skill.name, { public: 'true' }, skill);
      ids.set(skill.name, body.id);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  async function search(caller: TestUser | string, query: Record<string, string | number>): Promise<Hit[]> {
    const res = await t.http
      .get('/api/skills/search')
      .query(query)
      .set(as(typeof caller === 'string' ? caller : caller.key));
    expect(res.status).toBe(200);
    return res.body.items;
  }

  it('finds what a person expects in the top 3 (recall@3 >= 0.9), the named skill first', async () => {
    expect(CATALOG.length).toBeGreaterThanOrEqual(40);
    expect(QUERIES.length).toBeGreaterThanOrEqual(25);
    const misses: string[] = [];
    let recall = 0;
    let firstHits = 0;
    for (const query of QUERIES) {
      const top = (await search(alice, { q: query.q, limit: 3 })).map((hit) => hit.name);
      const found = query.expected.filter((name) => top.includes(name)).length / query.expected.length;
      recall += found;
      if (query.expected.includes(top[0])) firstHits++;
      if (found < 1)
        misses.push(
          `${query.kind} ${JSON.stringify(query.q)}: expected ${query.expected.join(', ')}, got ${top.join(', ')}`,
        );
      if (query.first) expect({ q: query.q, first: top[0] }).toEqual({ q: query.q, first: query.first });
    }
    const figures = {
      skills: CATALOG.length,
      queries: QUERIES.length,
      recall_at_3: Number((recall / QUERIES.length).toFixed(3)),
      first_hit_rate: Number((firstHits / QUERIES.length).toFixed(3)),
    };
    process.stdout.write(`search relevance: ${JSON.stringify(figures)}\n  misses:\n    ${misses.join('\n    ')}\n`);
    expect(figures.recall_at_3).toBeGreaterThanOrEqual(0.9);
    for (const kind of ['prefix', 'typo', 'plural', 'body']) {
      expect(QUERIES.some((q) => q.kind === kind)).toBe(true);
    }
  });

  it('a name match ranks above a description match, above a body match; scores are in [0, 1] and repeat', async () => {
    await publishSkill(t, ADMIN_KEY, 'zanzibar', { public: 'true' }, { description: 'Maps of islands.' });
    await publishSkill(t, ADMIN_KEY, 'island-maps', { public: 'true' }, { description: 'About zanzibar and more.' });
    await publishSkill(t, ADMIN_KEY, 'atlas', { public: 'true' }, { description: 'Atlases.', body: 'See zanzibar.\n' });
    const hits = await search(alice, { q: 'zanzibar' });
    expect(hits.map((h) => h.name)).toEqual(['zanzibar', 'island-maps', 'atlas']);
    expect(hits.map((h) => h.score)).toEqual([1, 0.525, 0.375]);
    for (const query of QUERIES.slice(0, 12)) {
      const first = await search(alice, { q: query.q, limit: 50, min_score: 0 });
      const again = await search(alice, { q: query.q, limit: 50, min_score: 0 });
      expect(again).toEqual(first);
      for (const [i, hit] of first.entries()) {
        expect(hit.score).toBeGreaterThanOrEqual(0);
        expect(hit.score).toBeLessThanOrEqual(1);
        if (i > 0) expect(first[i - 1].score).toBeGreaterThanOrEqual(hit.score);
      }
    }
  });

  it('answers the contract fields', async () => {
    const [hit] = await search(alice, { q: 'terraform', limit: 1 });
    const skill = (await t.http.get(`/api/skills/${ids.get('terraform')}`).set(as(alice.key))).body;
    expect(hit).toEqual({
      skill_id: skill.id,
      name: 'terraform',
      description: skill.description,
      namespace: 'default',
      is_public: true,
      version: 1,
      content_hash: skill.latest_version.content_hash,
      allowed_tools: null,
      score: 1,
    });
    const res = await t.http.get('/api/skills/search').query({ q: 'Terraform!' }).set(as(alice.key));
    expect(res.body.query).toBe('Terraform!');
  });

  it('shows only what the caller may read, and a hidden skill moves nothing else', async () => {
    const queries = ['pdf', 'docker', 'pdf tools', 'dokcer', 'semver'];
    const before = await Promise.all(queries.map((q) => search(alice, { q, limit: 50, min_score: 0 })));
    // Skills alice may not read that would rank first: bob's own, and a group's she is not in.
    const bobs = await publishSkill(t, bob, 'pdf', {}, { description: 'Docker, semver and pdf tools.' });
    const vaultId = await s.group(bob, 'vault');
    const vault = await publishSkill(t, bob, 'pdf-tools', { namespace: 'vault' }, { body: 'dokcer docker semver\n' });
    const after = await Promise.all(queries.map((q) => search(alice, { q, limit: 50, min_score: 0 })));
    expect(after).toEqual(before);
    for (const hits of after) {
      expect(hits.map((h) => h.skill_id)).not.toContain(bobs.id);
      expect(hits.map((h) => h.skill_id)).not.toContain(vault.id);
    }
    expect((await search(alice, { q: 'pdf', limit: 1 }))[0].skill_id).toBe(ids.get('pdf'));

    // Bob reads both; an admin reads everything; a Reporter of the group reads its skill.
    expect((await search(bob, { q: 'pdf tools', limit: 3 })).map((h) => h.skill_id)).toEqual(
      expect.arrayContaining([bobs.id, vault.id]),
    );
    expect((await search(ADMIN_KEY, { q: 'pdf', limit: 50 })).map((h) => h.skill_id)).toEqual(
      expect.arrayContaining([bobs.id, vault.id, ids.get('pdf')]),
    );
    await s.put(bob, `/api/groups/${vaultId}/members/${alice.id}`, { role: 'Reporter' });
    t.changed();
    expect((await search(alice, { q: 'pdf tools' })).map((h) => h.skill_id)).toContain(vault.id);
    expect((await search(alice, { q: 'pdf' })).map((h) => h.skill_id)).not.toContain(bobs.id);
    // Out of the group again: the next search, at once, no longer shows its skill.
    expect((await t.http.delete(`/api/groups/${vaultId}/members/${alice.id}`).set(as(bob.key))).status).toBe(204);
    expect((await search(alice, { q: 'pdf tools', limit: 50, min_score: 0 })).map((h) => h.skill_id)).not.toContain(
      vault.id,
    );
  });

  it('orders ties by name, then personal, group, public, then id', async () => {
    const carol = await createUser(t, 'carol');
    await s.group(carol, 'lint-a');
    await s.group(carol, 'lint-b');
    const pub = await publishSkill(t, ADMIN_KEY, 'lint-rules', { public: 'true' });
    const groupB = await publishSkill(t, carol, 'lint-rules', { namespace: 'lint-b' });
    const groupA = await publishSkill(t, carol, 'lint-rules', { namespace: 'lint-a' });
    const mine = await publishSkill(t, carol, 'lint-rules');
    const hits = await search(carol, { q: 'lint rules' });
    expect(hits.map((h) => [h.skill_id, h.score])).toEqual([
      [mine.id, 1],
      [groupB.id, 1],
      [groupA.id, 1],
      [pub.id, 1],
    ]);
  });

  it('filters by namespace and is_public, and honours limit and min_score', async () => {
    const dave = await createUser(t, 'dave');
    await publishSkill(t, dave, 'docker', {}, { description: 'My own docker notes.' });
    const all = await search(dave, { q: 'docker', limit: 50, min_score: 0 });
    expect(all.length).toBeGreaterThan(2);
    expect((await search(dave, { q: 'docker', is_public: 'false' })).map((h) => h.name)).toEqual(['docker']);
    expect((await search(dave, { q: 'docker', is_public: 'true', limit: 50, min_score: 0 })).length).toBe(
      all.length - 1,
    );
    expect((await search(dave, { q: 'docker', namespace: 'vault' })).length).toBe(0);
    expect(await search(dave, { q: 'docker', limit: 2, min_score: 0 })).toEqual(all.slice(0, 2));
    const strict = await search(dave, { q: 'docker', min_score: 0.9, limit: 50 });
    expect(strict.length).toBeGreaterThan(0);
    expect(strict).toEqual(all.filter((h) => h.score >= 0.9));
    expect(await search(dave, { q: 'docker', min_score: 1, limit: 50 })).toEqual(all.filter((h) => h.score === 1));
  });

  it('follows new versions and deletes', async () => {
    const owner = await createUser(t, 'erin');
    const skill = await publishSkill(t, owner, 'weather-report', {}, { description: 'Forecasts from quokka.' });
    expect((await search(owner, { q: 'quokka' })).map((h) => h.skill_id)).toEqual([skill.id]);
    const zip = skillZip('weather-report', { description: 'Forecasts from wombat.', body: 'Ask the numbat.\n' });
    expect((await publishVersion(t, owner, skill.id, zip)).status).toBe(201);
    expect(await search(owner, { q: 'quokka' })).toEqual([]);
    expect(await search(owner, { q: 'wombat' })).toEqual([expect.objectContaining({ skill_id: skill.id, version: 2 })]);
    expect((await search(owner, { q: 'numbat' })).map((h) => h.skill_id)).toEqual([skill.id]);
    expect((await t.http.delete(`/api/skills/${skill.id}`).set(as(owner.key))).status).toBe(204);
    expect(await search(owner, { q: 'wombat' })).toEqual([]);
    expect(await search(ADMIN_KEY, { q: 'wombat' })).toEqual([]);
  });

  it.each(['!!!', '--- ? ---', '   ', 'the', 'a to of'])(
    'a query without searchable words (%j) answers no items',
    async (q) => {
      const res = await t.http.get('/api/skills/search').query({ q }).set(as(alice.key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [], query: q });
    },
  );

  it.each([
    "it's",
    'back\\slash',
    'a:b & c | !d <-> (e)',
    '\'quoted\' "double"',
    '中文 русский العربية',
    'İstanbul ǅ ﬁle Ⅻ',
    '🎉 pdf 🎉',
    'x'.repeat(256),
    Array.from({ length: 16 }, (_, i) => i).join(' '),
    '%00 %zz',
  ])('any text is a query, never an error: %j', async (q) => {
    const res = await t.http.get('/api/skills/search').query({ q }).set(as(alice.key));
    expect(res.status).toBe(200);
    expect(res.body.query).toBe(q);
  });

  it('takes q of 256 characters, counted as characters', async () => {
    for (const q of ['a'.repeat(256), '😀'.repeat(256), `${'pdf '.repeat(63)}pdf!`]) {
      expect((await t.http.get('/api/skills/search').query({ q }).set(as(alice.key))).status).toBe(200);
    }
  });

  it.each([
    ['no q', ''],
    ['an empty q', 'q='],
    ['a q of 257 characters', `q=${'a'.repeat(257)}`],
    ['q twice', 'q=a&q=b'],
    ['q with NUL', 'q=pdf%00'],
    ['limit 0', 'q=pdf&limit=0'],
    ['limit 51', 'q=pdf&limit=51'],
    ['limit 1.5', 'q=pdf&limit=1.5'],
    ['limit x', 'q=pdf&limit=x'],
    ['min_score 1.5', 'q=pdf&min_score=1.5'],
    ['min_score -0.1', 'q=pdf&min_score=-0.1'],
    ['min_score empty', 'q=pdf&min_score='],
    ['min_score NaN', 'q=pdf&min_score=NaN'],
    ['min_score 1e-1', 'q=pdf&min_score=1e-1'],
    ['is_public maybe', 'q=pdf&is_public=maybe'],
    ['an unknown parameter', 'q=pdf&sort=name'],
  ])('%s is 400 VALIDATION_FAILED', async (_what, query) => {
    expectError(await t.http.get(`/api/skills/search?${query}`).set(as(alice.key)), 400, 'VALIDATION_FAILED');
  });

  describe('bounds counted after NFKC and lower-casing (docs/search.md#limits)', () => {
    const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    const hostile = `${'\u3316'.repeat(113)} ${'\u3315'.repeat(135)}`;

    it.each([
      ['the hostile query (249 characters, 1,354 after NFKC)', hostile, /it has 1354$/],
      ['43 x ㌖ (258 after NFKC)', '\u3316'.repeat(43), /it has 258$/],
      ['129 x İ (258 once lower-cased)', '\u0130'.repeat(129), /it has 258$/],
      ['17 distinct words', words(17), /^q must hold at most 16 distinct words after normalisation; it has 17$/],
      ['2,049 characters, refused before normalising', 'a'.repeat(2049), /it has over 2048 before$/],
    ])('%s is 400 VALIDATION_FAILED naming the rule, and nothing changes', async (_what, q, message) => {
      const before = await search(alice, { q: 'pdf forms' });
      const stored = await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM skill_search');
      const body = expectError(
        await t.http.get('/api/skills/search').query({ q }).set(as(alice.key)),
        400,
        'VALIDATION_FAILED',
      );
      expect(body.message).toEqual([
        expect.stringMatching(/^q must (be 1-256 characters after Unicode normalisation \(NFKC\)|hold at most 16)/),
      ]);
      expect((body.message as string[])[0]).toMatch(message);
      expect(await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM skill_search')).toEqual(stored);
      expect(await search(alice, { q: 'pdf forms' })).toEqual(before);
    });

    it.each([
      ['42 x ㌖ (252 after NFKC)', '\u3316'.repeat(42)],
      ['16 distinct words', words(16)],
      ['17 words, 16 distinct once lower-cased', `${words(16)} W3`],
    ])('%s is a query', async (_what, q) => {
      const res = await t.http.get('/api/skills/search').query({ q }).set(as(alice.key));
      expect(res.status).toBe(200);
      expect(res.body.query).toBe(q);
    });
  });

  it('is for users: a task token gets 404, no credentials 401', async () => {
    const { team } = await s.teamWithGhost(alice, 'finder', ['pdf'], []);
    const task = await s.task(alice, { team_id: team.id });
    const token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token as string;
    expectError(await t.http.get('/api/skills/search?q=pdf').set(as(token)), 404, 'NOT_FOUND');
    expectError(await t.http.get('/api/skills/search?q=pdf'), 401, 'UNAUTHENTICATED');
  });

  it('binds its values as parameters that come back exactly as given, under settings for it alone', async () => {
    const hostile = [
      "o'brien",
      "'; DROP TABLE skills; --",
      "back\\slash \\' quote",
      '$1 $$ dollar',
      'line\nbreak\ttab',
      'ünïcødé ✓',
      '',
    ];
    const db = t.app.get(DataSource);
    const [row] = await queryWithLocalSettings<{ a: string[]; b: string[]; c: number; d: boolean; e: null; f: number }>(
      db,
      SEARCH_PLANNER_SETTINGS,
      "SELECT $1::text[] AS a, $2::text[] AS b, $3::int AS c, $4::boolean AS d, $5::text AS e, $6::float8 AS f, current_setting('enable_indexscan') AS g",
      [hostile, [], 42, false, null, 0.25],
    );
    expect(row).toEqual({ a: hostile, b: [], c: 42, d: false, e: null, f: 0.25, g: 'off' });
    await expect(queryWithLocalSettings(db, SEARCH_PLANNER_SETTINGS, 'SELECT 1 / $1::int', [0])).rejects.toThrow(
      /division by zero/,
    );
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(queryWithLocalSettings(db, SEARCH_PLANNER_SETTINGS, 'SELECT $1::jsonb', [circular])).rejects.toThrow(
      /circular/i,
    );
    // Every connection of the pool is back to the defaults, and nothing was left in a transaction.
    const after = await Promise.all(
      Array.from({ length: 4 }, () =>
        db.query("SELECT current_setting('enable_indexscan') AS g, now() = statement_timestamp() AS fresh"),
      ),
    );
    expect(after.flat()).toEqual(Array.from({ length: 4 }, () => ({ g: 'on', fresh: true })));
    expect(await db.query('SELECT count(*)::int AS n FROM skills')).toEqual([{ n: expect.any(Number) }]);
  });

  it('runs a named statement on every connection of the pool, parsed once each, and after a failed batch', async () => {
    const db = t.app.get(DataSource);
    const named = {
      name: 'search_spec_named',
      text: "SELECT 10 / $1::int AS q, current_setting('plan_cache_mode') AS mode, current_setting('enable_indexscan') AS g",
    };
    // More calls at once than the pool has connections: each connection prepares it once (on the
    // embedded database, one session for all of them), and every call answers.
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => queryWithLocalSettings(db, SEARCH_PLANNER_SETTINGS, named, [i + 1])),
    );
    expect(answers.map((rows) => rows[0])).toEqual(
      Array.from({ length: 24 }, (_, i) => ({ q: Math.floor(10 / (i + 1)), mode: 'force_custom_plan', g: 'off' })),
    );
    await expect(queryWithLocalSettings(db, SEARCH_PLANNER_SETTINGS, named, [0])).rejects.toThrow(/division by zero/);
    // A failed batch leaves nothing set, and the statement still runs on every connection.
    const again = await Promise.all(
      Array.from({ length: 12 }, () => queryWithLocalSettings(db, SEARCH_PLANNER_SETTINGS, named, [5])),
    );
    expect(again.map((rows) => rows[0].q)).toEqual(Array.from({ length: 12 }, () => 2));
    const after = await db.query("SELECT current_setting('plan_cache_mode') AS mode");
    expect(after).toEqual([{ mode: 'auto' }]);
  });

  it('is served by indexes: GIN for the terms, the scope key for the reader, no scan of skill_search', async () => {
    const plan = (readableGroups: string[] | 'all'): Promise<string> =>
      withClient(t.db.url, async (c) => {
        const filter = {
          terms: searchTerms('dokcer pdf forms'),
          readerUserId: alice.id,
          readableGroups,
          minScore: 0,
          limit: 8,
        };
        const query = (await SkillSearchRepository.prepare(c, filter.terms))!;
        const { sql, parameters } = SkillSearchRepository.statement(filter, query);
        await c.query('BEGIN');
        try {
          // With a few dozen rows a sequential scan is cheaper; this asks what the indexes can serve,
          // under the settings the service runs the statement with.
          for (const setting of ['enable_seqscan = off', ...SEARCH_PLANNER_SETTINGS])
            await c.query(`SET LOCAL ${setting}`);
          const rows = (await c.query(`EXPLAIN ${sql}`, parameters)).rows as Array<{ 'QUERY PLAN': string }>;
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        } finally {
          await c.query('ROLLBACK');
        }
      });
    const everything = await plan('all');
    for (const index of ['name_vector', 'name_variants', 'description_vector', 'body_vector']) {
      expect(everything).toContain(`Bitmap Index Scan on skill_search_${index}_idx`);
    }
    const reader = await plan(['vault']);
    expect(reader).toMatch(/Bitmap Index Scan on skill_search_\w+_idx/);
    for (const p of [everything, reader]) expect(p).not.toMatch(/Seq Scan on skill_search/);
  });
});
