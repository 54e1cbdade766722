import { describe, expect, it } from 'vitest';
import { StoreTokenCache } from '../../src/secrets/index.ts';

function cacheAt(start = 1_000_000, maxEntries?: number) {
  let t = start;
  const cache = new StoreTokenCache({ now: () => t, maxEntries });
  return { cache, advance: (seconds: number) => void (t += seconds * 1000), at: (ms: number) => void (t = ms) };
}

describe('StoreTokenCache', () => {
  it.each([
    // [lease s, still usable after s, gone after s]: renewed 10% of the lease early, at most 30 s early
    [60, 53.9, 54],
    [3600, 3569.9, 3570],
    [1, 0.89, 0.9],
  ])('a %i s lease is reused until %f s and dropped at %f s', (lease, usable, gone) => {
    const { cache, advance } = cacheAt();
    cache.set('k', 'tok', lease);
    advance(usable);
    expect(cache.get('k')).toBe('tok');
    advance(gone - usable);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('a lease of 0 never expires, unless capped by notAfter', () => {
    const { cache, advance } = cacheAt(1_000_000);
    cache.set('forever', 'a', 0);
    cache.set('capped', 'b', 0, 1_000_000 + 5_000);
    cache.set('lease-capped', 'c', 3600, 1_000_000 + 5_000);
    advance(4.9);
    expect([cache.get('forever'), cache.get('capped'), cache.get('lease-capped')]).toEqual(['a', 'b', 'c']);
    advance(0.1);
    expect([cache.get('forever'), cache.get('capped'), cache.get('lease-capped')]).toEqual(['a', undefined, undefined]);
  });

  it('does not store a token whose cap already passed', () => {
    const { cache } = cacheAt(1_000_000);
    cache.set('k', 'tok', 60, 999_999);
    expect(cache.size).toBe(0);
  });

  it('stays within maxEntries, dropping expired entries first, then the oldest', () => {
    const { cache, advance } = cacheAt(0, 3);
    cache.set('short', 's', 1);
    cache.set('a', 'a', 600);
    cache.set('b', 'b', 600);
    advance(2);
    cache.set('c', 'c', 600);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['a', 'b', 'c']);
    cache.set('d', 'd', 600);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toBe('d');
  });

  it('delete and clear forget tokens', () => {
    const { cache } = cacheAt();
    cache.set('a', 'a', 60);
    cache.set('b', 'b', 60);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
