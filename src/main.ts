// The app's modules (Nest, TypeORM, Swagger: most of a second) are loaded only after the embedded
// database's thread has started, so the two overlap; nothing above main() may import them.
import type * as AppSetup from './app.setup';
import { AppLogger, maskDatabaseUrl } from './common/logging/app-logger';
import { AppConfig, configSecrets, ConfigError, loadConfig, readEnvFile } from './config/app-config';
import { DataDirLockedError } from './database/data-dir-lock';
import { EmbeddedPostgres, startEmbeddedPostgres } from './database/embedded-postgres';

const SHUTDOWN_GRACE_MS = 10_000;

let envFileRead = false;

function readConfig(): AppConfig {
  try {
    envFileRead = readEnvFile();
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

let bootLogger: AppLogger | undefined;

/** What a newcomer needs to hear when the port cannot be had: which setting moves it. */
function listenRefusal(err: NodeJS.ErrnoException, host: string, port: number): string | undefined {
  const where = `${host}:${port}`;
  if (err.code === 'EADDRINUSE') {
    return `${where} is already in use (another skill-resolver, or another program): set PORT to a free port, e.g. PORT=3001 npm start (HOST sets the address)`;
  }
  if (err.code === 'EACCES') return `no permission to listen on ${where}: set PORT to a port above 1023`;
  if (err.code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine: set HOST (default 127.0.0.1)`;
  return undefined;
}

/** Node 20 runs everything here, but its line has ended: said once at boot (docs/configuration.md#nodejs). */
function nodeWarning(logger: AppLogger): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) {
    logger.write(
      'warn',
      `Node.js ${process.versions.node} reached its end of life on 2026-04-30 (no more security fixes): run 22, 24 or 26`,
    );
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = new AppLogger(config.logLevel, config.logFormat);
  if (envFileRead) logger.write('info', 'settings read from .env (the environment wins over it)');
  nodeWarning(logger);
  logger.maskSecrets(configSecrets(config));
  bootLogger = logger;
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = config.databaseUrl;
  const starting = databaseUrl
    ? undefined
    : startEmbeddedPostgres({
        dataDir: config.dataDir,
        maxConnections: config.dbPoolSize + 4,
        // Not called once stop() has begun.
        onFailure: (err) => {
          logger.write('fatal', 'the embedded database stopped; exiting', { error: err.message });
          process.exit(1);
        },
      });
  // Loaded while the database starts on its own thread.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded here on purpose, see the top
  const { createApp } = require('./app.setup') as typeof AppSetup;
  if (databaseUrl) {
    logger.write('info', 'database: PostgreSQL server', { database_url: maskDatabaseUrl(databaseUrl) });
  } else {
    try {
      embedded = await starting!;
    } catch (err) {
      if (err instanceof DataDirLockedError) {
        logger.write('fatal', err.message, { data_dir: err.dataDir, holder_pid: err.holderPid });
        process.exit(73); // EX_CANTCREAT
      }
      throw err;
    }
    if (embedded.tookOverFromPid !== undefined) {
      logger.write('warn', 'took over the lock of the data folder left by a process that is gone', {
        data_dir: config.dataDir,
        previous_pid: embedded.tookOverFromPid,
      });
    }
    databaseUrl = embedded.url;
    logger.write('info', 'database: embedded PostgreSQL (PGlite)', {
      data_dir: config.dataDir,
      ...(embedded.fromTemplate ? { made_from: 'the build template' } : {}),
    });
  }

  const app = await createApp(config, { databaseUrl, logger }).catch(async (err: unknown) => {
    await embedded?.stop();
    throw err;
  });
  await app.listen(config.port, config.host).catch(async (err: NodeJS.ErrnoException) => {
    const refusal = listenRefusal(err, config.host, config.port);
    if (!refusal) throw err;
    logger.write('fatal', refusal, { host: config.host, port: config.port, error: err.code });
    await app.close().catch(() => undefined);
    await embedded?.stop();
    process.exit(69); // EX_UNAVAILABLE
  });

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.write('info', 'shutting down', { signal });
    setTimeout(() => {
      logger.write('error', 'shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    void (async () => {
      try {
        await app.close();
        await embedded?.stop();
        logger.write('info', 'stopped');
        process.exit(0);
      } catch (err) {
        logger.write('error', 'shutdown failed', { error: (err as Error).message });
        process.exit(1);
      }
    })();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));

  // Said once the signals are handled: whoever waits for this line may stop the process at once.
  const address = app.getHttpServer().address();
  logger.write('info', 'listening', {
    address: typeof address === 'object' && address ? `${address.address}:${address.port}` : String(address),
    boot_ms: Math.round(process.uptime() * 1000),
    rss_mb: Math.round(process.memoryUsage().rss / 1024 / 1024),
  });
}

main().catch((err: unknown) => {
  const error = (err as Error)?.message ?? String(err);
  if (bootLogger) bootLogger.write('fatal', 'boot failed', { error });
  else
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', time: new Date().toISOString(), msg: 'boot failed', error })}\n`,
    );
  process.exit(1);
});
