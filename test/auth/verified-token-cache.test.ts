import { describe, expect, it } from 'vitest';
import { VerifiedTokenCache, type VerifiedAccessToken } from '../../src/auth/index.ts';

function verified(subject: string, expiresAt: number): VerifiedAccessToken {
  return { principal: { subject, scopes: [] }, expiresAt };
}

describe('VerifiedTokenCache', () => {
  it('keys by the whole token: two different tokens never share an entry', () => {
    const cache = new VerifiedTokenCache({ now: () => 0 });
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';
    cache.set(token, verified('a', 3600));
    // Tokens differing in one character of the signature, of the payload, or by a prefix.
    expect(cache.get(`${token.slice(0, -1)}Z`)).toBeUndefined();
    expect(cache.get(token.replace('eyJzdWIiOiJhIn0', 'eyJzdWIiOiJiIn0'))).toBeUndefined();
    expect(cache.get(token.slice(0, -2))).toBeUndefined();
    expect(cache.get(`${token}x`)).toBeUndefined();
    cache.set(`${token}x`, verified('b', 3600));
    expect(cache.get(token)?.principal.subject).toBe('a');
    expect(cache.get(`${token}x`)?.principal.subject).toBe('b');
    expect(cache.size).toBe(2);
  });

  it('never answers for a token that only ends like a cached one', () => {
    const cache = new VerifiedTokenCache({ now: () => 0 });
    const tail = 'c2lnbmF0dXJlLXRoYXQtaXMtbG9uZy1lbm91Z2g';
    const alice = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.${tail}`;
    const mallory = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.${tail}`;
    cache.set(alice, verified('alice', 3600));
    expect(cache.get(mallory)).toBeUndefined();
    expect(cache.get(tail)).toBeUndefined();
    // A second verified token with the same tail takes the slot over; alice's is verified again, never answered as mallory.
    cache.set(mallory, verified('mallory', 3600));
    expect(cache.get(mallory)?.principal.subject).toBe('mallory');
    expect(cache.get(alice)).toBeUndefined();
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
