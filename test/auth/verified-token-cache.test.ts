import { describe, expect, it } from 'vitest';
import { VerifiedTokenCache, type VerifiedAccessToken } from '../../src/auth/index.ts';

function verified(subject: string, expiresAt: number): VerifiedAccessToken {
  return { principal: { subject, scopes: [] }, expiresAt };
}

describe('VerifiedTokenCache', () => {
  it('keys by the SHA-256 of the token, never the token', () => {
    const key = VerifiedTokenCache.keyOf('eyJ.some.token');
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain('eyJ');
    expect(VerifiedTokenCache.keyOf('eyJ.some.token')).toBe(key);
    expect(VerifiedTokenCache.keyOf('eyJ.some.token2')).not.toBe(key);
  });

  it('drops an entry at the token\'s exp', () => {
    let now = 1_000_000;
    const cache = new VerifiedTokenCache({ now: () => now });
    cache.set('k', verified('a', 1_060)); // exp 60 s ahead
    now += 59_999;
    expect(cache.get('k')?.principal.subject).toBe('a');
    now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops an entry after maxAgeMs even when exp is later', () => {
    let now = 1_000_000;
    const cache = new VerifiedTokenCache({ now: () => now, maxAgeMs: 5_000 });
    cache.set('k', verified('a', 1_000 + 3600));
    now += 4_999;
    expect(cache.get('k')).toBeDefined();
    now += 1;
    expect(cache.get('k')).toBeUndefined();
  });

  it('never stores an already expired token', () => {
    const cache = new VerifiedTokenCache({ now: () => 2_000_000 });
    cache.set('k', verified('a', 1_999));
    expect(cache.size).toBe(0);
  });

  it('is bounded: the oldest entry goes first', () => {
    const cache = new VerifiedTokenCache({ now: () => 0, maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, verified(key, 3600));
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')?.principal.subject).toBe('d');
  });
});
