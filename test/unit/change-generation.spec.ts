import { ChangeGeneration, GenerationCache } from '../../src/common/cache/change-generation';

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

  it('stays bounded, dropping the least recently used entry first', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 3);
    for (const k of ['a', 'b', 'c']) cache.set(k, k.charCodeAt(0), changes.current());
    expect(cache.get('a')).toBe(97); // a is now the most recently used
    cache.set('d', 100, changes.current());
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k))).toEqual([97, undefined, 99, 100]);
  });

  it('keeps nothing when its size is 0', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 0);
    cache.set('k', 1, changes.current());
    expect(cache.get('k')).toBeUndefined();
  });
});
