import { ChangeGeneration, GenerationCache } from '../../src/cache/change-generation';

describe('GenerationCache', () => {
  it('serves an entry until the next change', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<string>(changes);
    cache.set('k', 'v', changes.current());
    expect(cache.get('k')).toBe('v');
    changes.bump();
    expect(cache.get('k')).toBeUndefined();
  });

  it('never stores a value computed before a change that happened while computing', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<string>(changes);
    const startedAt = changes.current();
    changes.bump(); // a write commits while the read was running
    cache.set('k', 'stale', startedAt);
    expect(cache.get('k')).toBeUndefined();
  });

  it('serves nothing while changes cannot be heard, and drops what it had', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<string>(changes);
    cache.set('k', 'v', changes.current());
    changes.setHeard(false);
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', 'v', changes.current());
    expect(cache.get('k')).toBeUndefined();
    changes.setHeard(true);
    cache.set('k', 'v2', changes.current());
    expect(cache.get('k')).toBe('v2');
  });

  it('serves only until the last heartbeat is too old, then nothing filled before the gap', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<string>(changes);
    changes.setHeard(false); // a listener starts deaf
    const t0 = 1_000_000;
    changes.heardUntilAtLeast(t0 + 2_000, t0); // a heartbeat sent at t0 heard at once
    cache.set('k', 'v', changes.current());
    expect(changes.isCurrent(changes.current(), t0 + 1_999)).toBe(true);
    expect(cache.get('k')).toBe('v');
    // No heartbeat heard: past the deadline nothing is served, and nothing is stored.
    expect(changes.hearing(t0 + 2_000)).toBe(false);
    expect(changes.isCurrent(changes.current(), t0 + 2_000)).toBe(false);
    // Heard again after the gap: what was cached before it is dropped (changes may have been missed).
    const before = changes.current();
    changes.heardUntilAtLeast(t0 + 5_000, t0 + 3_100);
    expect(changes.current()).not.toBe(before);
    expect(changes.isCurrent(before, t0 + 3_100)).toBe(false);
    expect(changes.isCurrent(changes.current(), t0 + 3_100)).toBe(true);
  });

  it('a heartbeat heard in time extends the deadline without dropping anything', () => {
    const changes = new ChangeGeneration();
    changes.setHeard(false);
    changes.heardUntilAtLeast(2_000, 0);
    const generation = changes.current();
    changes.heardUntilAtLeast(3_000, 1_000);
    changes.heardUntilAtLeast(2_500, 1_100); // an older heartbeat heard late moves nothing back
    expect(changes.current()).toBe(generation);
    expect(changes.isCurrent(generation, 2_999)).toBe(true);
    expect(changes.isCurrent(generation, 3_000)).toBe(false);
  });

  it('stays bounded, dropping the least recently used entry first', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 3);
    for (const k of ['a', 'b', 'c']) cache.set(k, k.charCodeAt(0), changes.current());
    expect(cache.get('a')).toBe(97); // a is now the most recently used
    cache.set('d', 100, changes.current());
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k))).toEqual([97, undefined, 99, 100]);
  });

  it('with lazy order, moves an entry on a hit only once half the capacity was put after it', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 4, { lazy: true });
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, k.charCodeAt(0), changes.current());
    expect(cache.get('c')).toBe(99); // one entry put after it: left where it is
    expect(cache.get('b')).toBe(98); // two: still in the newer half
    expect(cache.recentKeys(10)).toEqual(['d', 'c', 'b', 'a']);
    expect(cache.get('a')).toBe(97); // three: moved to the back
    expect(cache.recentKeys(10)).toEqual(['a', 'd', 'c', 'b']);
    cache.set('e', 101, changes.current()); // drops b, the least recently moved
    expect(cache.recentKeys(10)).toEqual(['e', 'a', 'd', 'c']);
    cache.set('f', 102, changes.current()); // drops c: read while in the newer half, never moved since
    expect(cache.recentKeys(10)).toEqual(['f', 'e', 'a', 'd']);
  });

  it('with lazy order, never drops an entry read at least every half capacity, less one, of insertions', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 10, { lazy: true });
    cache.set('hot', 0, changes.current());
    for (let i = 0; i < 200; i++) {
      cache.set(`cold${i}`, i, changes.current());
      if (i % 4 === 3) expect(cache.get('hot')).toBe(0);
    }
    // The cold ones went out oldest first: the last 9 are there, the one before them is not.
    expect(cache.recentKeys(20).filter((k) => k !== 'hot')).toEqual(
      Array.from({ length: 9 }, (_, i) => `cold${199 - i}`),
    );
  });

  it('with lazy order, drops a stale entry on a hit and serves the new one after', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 4, { lazy: true });
    cache.set('k', 1, changes.current());
    changes.bump();
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', 2, changes.current());
    expect(cache.get('k')).toBe(2);
    expect(cache.recentKeys(10)).toEqual(['k']);
  });

  it('keeps nothing when its size is 0', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 0);
    expect([cache.keeps, new GenerationCache<number>(changes, 1).keeps]).toEqual([false, true]);
    cache.set('k', 1, changes.current());
    expect(cache.get('k')).toBeUndefined();
  });
});
