const { Client } = require('pg');
const { SkillSearchRepository } = require('./dist/src/skills/search/skill-search.repository');
const { searchTerms } = require('./dist/src/skills/search/search-terms');
const { searchQueries } = require('./dist/scripts/bench/discovery');
(async () => {
  const c = new Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/' + (process.argv[2] || 'srprof100k') }); await c.connect();
  if (process.env.PGSET) await c.query(process.env.PGSET);
  const groups = (await c.query(`SELECT name FROM groups LIMIT 3`)).rows.map(r => r.name);
  const out = [];
  for (const kind of ['typical', 'broad']) {
    let total = 0, n = 0; const results = [];
    for (const q of searchQueries(kind).slice(0, 20)) {
      const terms = searchTerms(q);
      const query = await SkillSearchRepository.prepare(c, terms);
      const { sql, parameters } = SkillSearchRepository.statement({ terms, readerUserId: 1005, readableGroups: groups, minScore: 0.1, limit: 10 }, query);
      await c.query(sql, parameters);
      const t = performance.now();
      let r; for (let i = 0; i < 5; i++) r = await c.query(sql, parameters);
      total += (performance.now() - t) / 5; n++;
      results.push(r.rows.map((x) => `${x.skill_id}:${x.score}`).join(','));
    }
    out.push(kind + ' ' + (total / n).toFixed(2) + ' ms/query');
    require('fs').writeFileSync(`/tmp/search-results-${kind}-${process.argv[3] || 'x'}.txt`, results.join('\n'));
  }
  console.log(out.join('; '));
  await c.end();
})();
