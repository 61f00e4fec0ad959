// `npm run blobs -- copy --to <store> [--from <store>]` and `npm run blobs -- verify [--store <store>]`
// (docs/storage.md#copying-between-stores): every package a version refers to, copied from one store
// to another with each sha256 checked, or checked where it is. Stores are `database`, `fs` and `s3`,
// configured by the same variables as the service (BLOB_DIR, S3_*); the default source is BLOB_STORE.
// Without DATABASE_URL it opens the embedded database, taking its lock (stop the service first).
// Exit codes: 0 clean, 1 packages missing or damaged, 64 a bad command line, 73 the data folder is
// in use, 78 a bad setting.
import { DataSource } from 'typeorm';
import { copyPackages, StoreReport } from '../src/blob-maintenance/blob-copy';
import { AppLogger } from '../src/common/logging/app-logger';
import {
  BLOB_STORE_KINDS,
  BlobStoreKind,
  ConfigError,
  configSecrets,
  loadConfig,
  readEnvFile,
} from '../src/config/app-config';
import { DataDirLockedError } from '../src/database/data-dir-lock';
import { EmbeddedPostgres, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { buildDataSourceOptions } from '../src/schema/typeorm-options';
import type { BlobStore } from '../src/storage/blob-store';
import { openBlobStore, StoreSettingsError } from '../src/storage/blob-stores';
import { GuardedBlobStore } from '../src/storage/guarded-blob-store';

const USAGE = `Usage:
  npm run blobs -- copy --to <store> [--from <store>]   copy every referenced package, each sha256 checked
  npm run blobs -- verify [--store <store>]             list referenced packages missing or damaged in a store
stores: ${BLOB_STORE_KINDS.join(', ')} (the default source and store: BLOB_STORE)`;

class UsageError extends Error {}

interface Command {
  name: 'copy' | 'verify';
  from: BlobStoreKind;
  to: BlobStoreKind | null;
}

function storeArg(value: string | undefined, flag: string): BlobStoreKind {
  if (!value || !(BLOB_STORE_KINDS as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} takes one of ${BLOB_STORE_KINDS.join(', ')}`);
  }
  return value as BlobStoreKind;
}

function parse(argv: string[], configured: BlobStoreKind): Command {
  const [name, ...rest] = argv;
  const flags = new Map<string, string | undefined>();
  for (let i = 0; i < rest.length; i += 2) {
    if (!['--to', '--from', '--store'].includes(rest[i])) throw new UsageError(`unknown argument ${rest[i]}`);
    flags.set(rest[i], rest[i + 1]);
  }
  if (name === 'copy' && !flags.has('--store')) {
    const from = flags.has('--from') ? storeArg(flags.get('--from'), '--from') : configured;
    const to = storeArg(flags.get('--to'), '--to');
    if (from === to) throw new UsageError(`--to ${to} is the store copied from`);
    return { name, from, to };
  }
  if (name === 'verify' && !flags.has('--to') && !flags.has('--from')) {
    return { name, from: flags.has('--store') ? storeArg(flags.get('--store'), '--store') : configured, to: null };
  }
  throw new UsageError(name ? `unknown command ${name}` : 'a command is needed');
}

function summary(command: Command, report: StoreReport): string {
  const mib = (report.bytes / 1024 / 1024).toFixed(1);
  const head =
    command.name === 'copy'
      ? `copy ${command.from} -> ${command.to}: ${report.packages} referenced packages (${mib} MiB): ${report.copied} copied, ${report.present} already there`
      : `verify ${command.from}: ${report.packages} referenced packages (${mib} MiB)`;
  return `${head}, ${report.missing.length} missing, ${report.damaged.length} damaged`;
}

async function main(): Promise<number> {
  readEnvFile();
  const config = loadConfig();
  const logger = new AppLogger(config.logLevel, 'text');
  logger.maskSecrets(configSecrets(config));
  const command = parse(process.argv.slice(2), config.storage.store);
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, maxConnections: 4 });
    url = embedded.url;
  }
  const db = new DataSource(buildDataSourceOptions({ url, poolSize: 4, limits: config.dbLimits }));
  const opened: BlobStore[] = [];
  try {
    await db.initialize();
    if (await db.showMigrations()) {
      throw new StoreSettingsError(
        'the database has migrations to run: start the service once, or npm run migration:run',
      );
    }
    // Each request bounded as in the service; nothing counted.
    const open = async (kind: BlobStoreKind): Promise<BlobStore> => {
      const store = await openBlobStore(kind, config.storage, db, config.dbLimits);
      opened.push(store);
      return new GuardedBlobStore(store, config.dbLimits.statementMs, { storeRequest: () => undefined }, logger);
    };
    const from = await open(command.from);
    const to = command.to ? await open(command.to) : null;
    let shown = 0;
    const report = await copyPackages(db, from, to, (r) => {
      if (r.packages - shown >= 1_000) {
        shown = r.packages;
        process.stderr.write(`${r.packages} packages...\n`);
      }
    });
    for (const key of report.missing) process.stdout.write(`missing  ${key}\n`);
    for (const key of report.damaged) process.stdout.write(`damaged  ${key}\n`);
    process.stdout.write(`${summary(command, report)}\n`);
    return report.missing.length + report.damaged.length === 0 ? 0 : 1;
  } finally {
    await Promise.all(opened.map((store) => store.close()));
    if (db.isInitialized) await db.destroy();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${USAGE}\n`);
      process.exit(64);
    }
    if (err instanceof ConfigError || err instanceof StoreSettingsError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(73);
    }
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
