import { spawn, ChildProcess } from 'node:child_process';
import { holderIsAlive, holderOf, parseHolder } from '../../src/database/data-dir-lock';

describe('parseHolder', () => {
  it.each([
    ['{"pid":12,"start":"345","boot":"b-1"}\n', { pid: 12, start: '345', boot: 'b-1' }],
    ['{"pid":12,"start":null,"boot":null}', { pid: 12, start: null, boot: null }],
    ['12\n', { pid: 12, start: null, boot: null }], // written by an earlier version
    ['', null],
    ['{"pid":', null],
    ['{"pid":0}', null],
    ['{"pid":"12"}', null],
    ['twelve', null],
  ])('%j', (text, holder) => {
    expect(parseHolder(text)).toEqual(holder);
  });
});

const onLinux = process.platform === 'linux' ? describe : describe.skip;

onLinux('holderIsAlive', () => {
  let other: ChildProcess;
  beforeAll(async () => {
    other = spawn('sleep', ['600'], { stdio: 'ignore' });
    await new Promise((r) => other.once('spawn', r));
  });
  afterAll(() => other.kill('SIGKILL'));

  it('a live process is the holder only if it started when the holder did, in the same boot', () => {
    const real = holderOf(other.pid);
    expect(real.start).toMatch(/^\d+$/);
    expect(holderIsAlive(real)).toBe(true);
    expect(holderIsAlive({ ...real, start: String(Number(real.start) + 1) })).toBe(false); // the pid was reused
    expect(holderIsAlive({ ...real, boot: 'another-boot' })).toBe(false);
  });

  it('a pid alone (an earlier lock format) counts only if its process started before the lock was written', () => {
    const legacy = { pid: other.pid!, start: null, boot: null };
    expect(holderIsAlive(legacy, Date.now())).toBe(true);
    expect(holderIsAlive(legacy, Date.now() - 3_600_000)).toBe(false);
  });

  it('this process, or a process that is gone, holds nothing', async () => {
    expect(holderIsAlive(holderOf())).toBe(false);
    const gone = spawn('true');
    const holder = await new Promise<ReturnType<typeof holderOf>>((resolve) =>
      gone.once('spawn', () => resolve(holderOf(gone.pid))),
    );
    await new Promise((r) => gone.once('exit', r));
    expect(holderIsAlive(holder)).toBe(false);
  });
});
