// Part of `npm run build`: makes the embedded database's template, an initialised cluster with
// every migration applied, dumped by PGlite (dist/embedded-template.tar.gz). It is rebuilt only
// when PGlite or the compiled migrations change; otherwise a cached copy is used.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { EMBEDDED_TEMPLATE, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { buildDataSourceOptions } from '../src/schema/typeorm-options';

const ROOT = join(__dirname, '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'skill-resolver');

/** What the template depends on: PGlite's version, the migrations as built, this recipe. */
function templateKey(): string {
  const hash = createHash('sha256').update('recipe 1\n');
  const manifest = join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  const pglite = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  hash.update(`pglite ${pglite.version}\n`);
  const migrations = join(ROOT, 'dist', 'migrations');
  for (const file of readdirSync(migrations)
    .filter((f) => f.endsWith('.js'))
    .sort()) {
    hash.update(`${file}\n`).update(readFileSync(join(migrations, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

async function build(target: string): Promise<void> {
  const embedded = await startEmbeddedPostgres({ maxConnections: 4, useTemplate: false });
  try {
    const dataSource = new DataSource(buildDataSourceOptions({ url: embedded.url, poolSize: 1 }));
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'all' });
    await dataSource.destroy();
    writeFileSync(`${target}.tmp`, await embedded.dump());
    renameSync(`${target}.tmp`, target);
  } finally {
    await embedded.stop();
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const cached = join(CACHE, `embedded-template-${templateKey()}.tar.gz`);
  const reused = existsSync(cached);
  if (!reused) {
    mkdirSync(CACHE, { recursive: true });
    await build(cached);
  }
  copyFileSync(cached, EMBEDDED_TEMPLATE);
  const ms = Math.round(performance.now() - started);
  process.stdout.write(`embedded database template: ${reused ? 'cached' : 'built'} in ${ms} ms\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`embedded database template: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
