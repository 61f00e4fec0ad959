import { InFlight } from '../../src/cache/in-flight';

describe('InFlight: a computation under way is shared while what it began from is current', () => {
  function counted(): { compute: () => Promise<number>; calls: () => number; finish: (value: number) => void } {
    let calls = 0;
    const waiting: Array<(value: number) => void> = [];
    return {
      compute: () => {
        calls++;
        return new Promise<number>((resolve) => waiting.push(resolve));
      },
      calls: () => calls,
      finish: (value) => waiting.splice(0).forEach((resolve) => resolve(value)),
    };
  }

  it.each<[string, (begun: number) => boolean, number]>([
    ['what it began from is current: one computation for both', () => true, 1],
    ['a change since: the second computes again', () => false, 2],
  ])('%s', async (_what, current, computations) => {
    const flights = new InFlight<number, number>();
    const c = counted();
    const first = flights.run('k', 1, current, c.compute);
    const second = flights.run('k', 2, current, c.compute);
    c.finish(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(c.calls()).toBe(computations);
  });

  it('another key is another computation; a settled one is not joined', async () => {
    const flights = new InFlight<number, number>();
    const c = counted();
    const a = flights.run('a', 1, () => true, c.compute);
    const b = flights.run('b', 1, () => true, c.compute);
    c.finish(1);
    await Promise.all([a, b]);
    const again = flights.run('a', 1, () => true, c.compute);
    c.finish(2);
    expect(await again).toBe(2);
    expect(c.calls()).toBe(3);
  });

  it('a failure reaches every caller that waited for it, and is not kept', async () => {
    const flights = new InFlight<number, number>();
    let calls = 0;
    const failing = (): Promise<number> => {
      calls++;
      return Promise.reject(new Error('down'));
    };
    const results = await Promise.allSettled([
      flights.run('k', 1, () => true, failing),
      flights.run('k', 1, () => true, failing),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    await expect(
      flights.run(
        'k',
        1,
        () => true,
        () => Promise.resolve(3),
      ),
    ).resolves.toBe(3);
  });
});
