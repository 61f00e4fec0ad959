// Seeds an embedded 10k DB and reports planning/execution of search statements on PGlite.
const { spawn } = require('child_process');
const d = '/work/main/dist/scripts/bench/';
const { seed } = require(d + 'seed');
const { seedDiscovery, searchQueries } = require(d + 'discovery');
const { skillLayer, skillCounts, NO_SKILLS } = require(d + 'catalog');
const { Reach, resources } = require(d + 'resources');
const { startService } = require(d + 'service');
const { Client } = require('pg');
const { SkillSearchRepository } = require('./dist/src/skills/search/skill-search.repository');
const { searchTerms } = require('./dist/src/skills/search/search-terms');
(async () => {
  const child = spawn(process.execPath, ['dist/scripts/embedded-server.js'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise((r) => child.stdout.once('data', (c) => r(JSON.parse(c.toString()).url)));
  const base = skillLayer(NO_SKILLS, skillCounts(10000), 1);
  const reach = new Reach(base); const work = resources(reach);
  const dir = require('fs').mkdtempSync('/tmp/sr-emb-');
  await (await startService(url, dir)).stop();
  let t = Date.now(); await seed(url, [base], work); await seedDiscovery(url); console.log('seeded', Date.now() - t);
  const c = new Client({ connectionString: url }); await c.connect();
  const groups = (await c.query(`SELECT name FROM groups LIMIT 3`)).rows.map(r => r.name);
  for (const setting of ['RESET ALL', 'SET enable_indexscan = off', 'SET enable_indexscan = off; SET enable_bitmapscan = on; SET random_page_cost = 1.1']) {
  await c.query('RESET ALL'); for (const st of setting.split(';')) await c.query(st);
  const plan = [], exec = [], wall = [];
  for (const q of searchQueries('typical').slice(0, 12)) {
    const terms = searchTerms(q);
    const query = await SkillSearchRepository.prepare(c, terms);
    const { sql, parameters } = SkillSearchRepository.statement({ terms, readerUserId: 5, readableGroups: groups, minScore: 0.1, limit: 10 }, query);
    const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, parameters);
    if (plan.length === 1 && process.env.SHOWPLAN) console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
    const text = r.rows.map((x) => x['QUERY PLAN']).join('\n');
    plan.push(Number(/Planning Time: ([\d.]+)/.exec(text)[1])); exec.push(Number(/Execution Time: ([\d.]+)/.exec(text)[1]));
    const t0 = performance.now(); for (let i = 0; i < 10; i++) await c.query(sql, parameters); wall.push((performance.now() - t0) / 10);
  }
  const avg = (a) => (a.reduce((x, y) => x + y, 0) / a.length).toFixed(2);
  console.log(setting, 'search: planning', avg(plan), 'execution', avg(exec), 'wall', avg(wall));
  }
  const skill = (await c.query(`SELECT id FROM skills WHERE is_public LIMIT 1`)).rows[0].id;
  let t1 = performance.now(); for (let i = 0; i < 50; i++) await c.query(`SELECT * FROM skills WHERE id = $1`, [skill]); console.log('one row wall', ((performance.now() - t1) / 50).toFixed(2));
  await c.end(); child.stdin.end(); process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
