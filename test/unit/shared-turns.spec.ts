import { setImmediate as nextTurn } from 'node:timers/promises';
import { SharedTurns } from '../../src/common/shared-turns';

/** What ran, as `<job>.<slice>` per turn of the loop; a ticker in the queue of immediates counts the turns. */
async function trace(
  perTurnMs: number,
  jobs: Record<string, number>,
): Promise<{ turns: string[][]; values: string[] }> {
  const turns: string[][] = [[]];
  let running = true;
  const ticker = (async () => {
    while (running) {
      await nextTurn();
      turns.push([]);
    }
  })();
  const shared = new SharedTurns(perTurnMs);
  function* job(name: string, slices: number): Generator<void, string> {
    for (let i = 1; i <= slices; i++) {
      turns[turns.length - 1].push(`${name}.${i}`);
      if (i < slices) yield;
    }
    return `${name} done`;
  }
  const values = await Promise.all(Object.entries(jobs).map(([name, slices]) => shared.run(job(name, slices))));
  running = false;
  await ticker;
  return { turns: turns.filter((turn) => turn.length > 0), values };
}

describe('SharedTurns: computations in flight share each turn of the event loop', () => {
  it.each<{ case: string; perTurnMs: number; jobs: Record<string, number>; turns: string[][] }>([
    {
      case: 'no time per turn: one slice per turn, the computations in turn',
      perTurnMs: 0,
      jobs: { a: 2, b: 2, c: 1 },
      turns: [['a.1'], ['b.1'], ['c.1'], ['a.2'], ['b.2']],
    },
    {
      case: 'time enough: slices in turn until a computation ends, which ends the turn',
      perTurnMs: 60_000,
      jobs: { a: 3, b: 2 },
      turns: [['a.1', 'b.1', 'a.2', 'b.2'], ['a.3']],
    },
    {
      case: 'a computation of one slice ends its turn at once',
      perTurnMs: 60_000,
      jobs: { a: 1, b: 1, c: 2 },
      turns: [['a.1'], ['b.1'], ['c.1', 'c.2']],
    },
  ])('$case', async ({ perTurnMs, jobs, turns }) => {
    const traced = await trace(perTurnMs, jobs);
    expect(traced).toEqual({ turns, values: Object.keys(jobs).map((name) => `${name} done`) });
  });

  it('the first slice runs in a later turn than run() was called in', async () => {
    const shared = new SharedTurns(60_000);
    let ran = false;
    const done = shared.run(
      (function* () {
        ran = true;
        yield;
      })(),
    );
    expect(ran).toBe(false);
    await done;
    expect(ran).toBe(true);
  });

  it('a computation that throws rejects its own promise; the others run on', async () => {
    const shared = new SharedTurns(0);
    const failing = shared.run(
      (function* (): Generator<void, number> {
        yield;
        throw new Error('broken');
      })(),
    );
    const fine = shared.run(
      (function* (): Generator<void, number> {
        yield;
        yield;
        return 7;
      })(),
    );
    await expect(failing).rejects.toThrow('broken');
    await expect(fine).resolves.toBe(7);
    expect(shared.pending).toBe(0);
  });
});
