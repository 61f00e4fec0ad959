// The embedded PostgreSQL (PGlite) served on a loopback port, so TypeORM and `pg` use it like any
// server. Used when DATABASE_URL is unset; the data folder is locked while it runs.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { acquireDataDirLock, DataDirLock } from './data-dir-lock';
import { EmbeddedSocketServer } from './embedded-socket-server';

export interface EmbeddedPostgres {
  url: string;
  /** Set when a lock left by a dead process was taken over. */
  tookOverFromPid?: number;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The data folder; omitted, the database lives in memory (tests). */
  dataDir?: string;
  /** At least the pool size: the socket server refuses connections past it. */
  maxConnections: number;
  port?: number;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  let lock: DataDirLock | undefined;
  if (options.dataDir) {
    lock = acquireDataDirLock(options.dataDir);
  }
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    let db: InstanceType<typeof PGlite>;
    if (options.dataDir) {
      const pgdata = join(options.dataDir, 'pgdata');
      mkdirSync(pgdata, { recursive: true, mode: 0o700 });
      db = await PGlite.create(pgdata);
    } else {
      db = await PGlite.create();
    }
    const server = new EmbeddedSocketServer(db, options.maxConnections);
    const port = await server.listen('127.0.0.1', options.port ?? 0);
    return {
      url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      tookOverFromPid: lock?.tookOverFromPid,
      stop: async () => {
        try {
          await server.close();
          await db.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}
