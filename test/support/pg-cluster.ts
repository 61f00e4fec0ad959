// A throwaway PostgreSQL cluster of the test's own (initdb / pg_ctl in a temp folder on a spare
// port), for fault tests that pause or stop the server: never the shared server. As root the
// binaries run as the `postgres` user.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why the cluster cannot be made here, or null. */
export function clusterUnavailable(): string | null {
  return existsSync(join(PG_BIN, 'initdb')) ? null : `${join(PG_BIN, 'initdb')} is missing (set PG_BIN)`;
}

export interface PgCluster {
  port: number;
  url(database?: string): string;
  /** SIGSTOP to the postmaster and every backend: the server stops answering and closes nothing. */
  freeze(): void;
  thaw(): void;
  /** pg_ctl stop (fast): the server closes every connection and refuses new ones. */
  stop(): void;
  start(): void;
  /** The postmaster and its children. */
  pids(): number[];
  destroy(): void;
}

function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

function run(binary: string, args: string[]): string {
  const command = join(PG_BIN, binary);
  return asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8', stdio: 'pipe' })
    : execFileSync(command, args, { encoding: 'utf8', stdio: 'pipe' });
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

export async function startPgCluster(): Promise<PgCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sr-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await sparePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=50',
  ].join(' ');
  const start = (): void => {
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', 'start']);
  };
  const postmaster = (): number => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = (): number[] => {
    const main = postmaster();
    return [main, ...childrenOf(main)];
  };
  let frozen: number[] = [];
  const cluster: PgCluster = {
    port,
    url: (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    freeze: () => {
      // The postmaster first, so that it forks nothing new meanwhile.
      const main = postmaster();
      process.kill(main, 'SIGSTOP');
      frozen = [main, ...childrenOf(main)];
      for (const pid of frozen.slice(1)) process.kill(pid, 'SIGSTOP');
    },
    thaw: () => {
      for (const pid of frozen) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // exited meanwhile
        }
      }
      frozen = [];
    },
    stop: () => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    start,
    pids,
    destroy: () => {
      cluster.thaw();
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  start();
  return cluster;
}
