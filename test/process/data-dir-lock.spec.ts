// The embedded data folder's lock with real processes (docs/operations.md#embedded-database): a lock whose holder is gone is
// taken over, even when its pid now belongs to another process or the holder is a zombie not yet
// reaped; a live holder is refused; a restart right after kill -9 succeeds, again and again.
import { ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holderOf, LOCK_FILE_NAME, parseHolder } from '../../src/database/data-dir-lock';
import { getJson, startService } from '../support/service-process';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');
const onLinux = process.platform === 'linux' ? describe : describe.skip;

function sleeper(): ChildProcess {
  return spawn('sleep', ['600'], { stdio: 'ignore' });
}

function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

onLinux('the data folder lock (real processes)', () => {
  let template: string;
  let dataDir: string;
  let lockPath: string;
  const others: ChildProcess[] = [];
  beforeAll(async () => {
    // A first boot creates the database (seconds of initdb in WebAssembly): once, then copied.
    template = mkdtempSync(join(tmpdir(), 'sr-lock-template-'));
    const service = startService({ DATA_DIR: template });
    await service.ready;
    const code = await service.stop();
    if (code !== 0) process.stderr.write(`signal ${service.child.signalCode}\n` + service.lines.join('\n') + '\n');
    expect(code).toBe(0);
  });
  afterAll(() => rmSync(template, { recursive: true, force: true }));
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sr-lock-'));
    cpSync(template, dataDir, { recursive: true });
    lockPath = join(dataDir, LOCK_FILE_NAME);
  });
  afterEach(() => {
    for (const child of others.splice(0)) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  function tookOver(lines: string[]): Record<string, unknown> | undefined {
    const line = lines.find((l) => l.includes('took over the lock'));
    return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
  }

  it('takes over a lock whose pid now belongs to another live process, in either file format', async () => {
    const stranger = sleeper();
    others.push(stranger);
    const pid = stranger.pid!;
    // The pid is alive, but the process behind it started at another time than the holder did.
    writeFileSync(lockPath, JSON.stringify({ ...holderOf(pid), start: '1' }) + '\n');
    const service = startService({ DATA_DIR: dataDir });
    const port = await service.ready;
    expect(tookOver(service.lines)).toEqual(expect.objectContaining({ previous_pid: pid, data_dir: dataDir }));
    expect(parseHolder(readFileSync(lockPath, 'utf8'))).toEqual(holderOf(service.child.pid));
    expect((await getJson(port, '/api/health/ready')).status).toBe(200);
    expect(await service.stop()).toBe(0);

    // A lock written by an earlier version names the pid alone: it was written before that process started.
    writeFileSync(lockPath, `${pid}\n`);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lockPath, anHourAgo, anHourAgo);
    const again = startService({ DATA_DIR: dataDir });
    await again.ready;
    expect(tookOver(again.lines)).toEqual(expect.objectContaining({ previous_pid: pid }));
    expect(await again.stop()).toBe(0);
  });

  it('refuses a live holder (exit 73): another service, or a lock naming a live process as it is', async () => {
    const holder = sleeper();
    others.push(holder);
    writeFileSync(lockPath, JSON.stringify(holderOf(holder.pid)) + '\n');
    const refused = startService({ DATA_DIR: dataDir });
    expect(await refused.exited).toBe(73);
    expect(refused.lines.join('\n')).toContain(`pid ${holder.pid}`);
    expect(parseHolder(readFileSync(lockPath, 'utf8'))?.pid).toBe(holder.pid);

    holder.kill('SIGKILL');
    const first = startService({ DATA_DIR: dataDir });
    await first.ready;
    const second = startService({ DATA_DIR: dataDir });
    expect(await second.exited).toBe(73);
    expect(second.lines.join('\n')).toContain(`pid ${first.child.pid}`);
    expect(await first.stop()).toBe(0);
  });

  it('restarts right after kill -9, four times in a row, keeping the data', async () => {
    let service = startService({ DATA_DIR: dataDir });
    await service.ready;
    const key = readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim();
    for (let round = 0; round < 4; round++) {
      service.child.kill('SIGKILL'); // and start the next one at once, without waiting for the exit
      service = startService({ DATA_DIR: dataDir });
      const port = await service.ready;
      expect((await getJson(port, '/api/users/me', { 'x-api-key': key })).status).toBe(200);
    }
    expect(await service.stop()).toBe(0);
  });

  it('takes over from a holder killed but not yet reaped by its parent (a zombie)', async () => {
    // The shell starts the service, then becomes `sleep`, which never reaps it.
    const parent = spawn('sh', ['-c', `"${process.execPath}" "${MAIN}" & echo "pid=$!"; exec sleep 600`], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    others.push(parent);
    let output = '';
    const holderPid = await new Promise<number>((resolve, reject) => {
      parent.stdout.setEncoding('utf8');
      parent.stdout.on('data', (chunk: string) => {
        output += chunk;
        const pid = /pid=(\d+)/.exec(output);
        if (pid && output.includes('"listening"')) resolve(Number(pid[1]));
      });
      parent.once('exit', () => reject(new Error(`the holder exited:\n${output}`)));
    });
    process.kill(holderPid, 'SIGKILL');
    const started = Date.now();
    while (procState(holderPid) !== 'Z') {
      if (Date.now() - started > 5_000) throw new Error(`pid ${holderPid} is ${procState(holderPid)}, not a zombie`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const service = startService({ DATA_DIR: dataDir });
    const port = await service.ready;
    expect(procState(holderPid)).toBe('Z');
    expect(tookOver(service.lines)).toEqual(expect.objectContaining({ previous_pid: holderPid }));
    expect((await getJson(port, '/api/health/ready')).status).toBe(200);
    expect(await service.stop()).toBe(0);
  });
});
