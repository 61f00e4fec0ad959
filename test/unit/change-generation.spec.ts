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

  it('stays bounded: past its size it starts over, keeping the newest entry', () => {
    const changes = new ChangeGeneration();
    const cache = new GenerationCache<number>(changes, 3);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, i, changes.current());
    const kept = Array.from({ length: 10 }, (_, i) => cache.get(`k${i}`)).filter((v) => v !== undefined);
    expect(kept.length).toBeLessThanOrEqual(3);
    expect(cache.get('k9')).toBe(9);
  });
});
