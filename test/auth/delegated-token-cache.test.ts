import { describe, expect, it } from 'vitest';
import { DelegatedTokenCache, delegatedTokenUsableUntil, type DelegatedToken } from '../../src/auth/index.ts';

const token = (expiresAt: number | undefined, value = 'delegated'): DelegatedToken => ({ accessToken: value, tokenType: 'Bearer', expiresAt, scope: 'api', issuedTokenType: undefined });
const key = { issuer: 'https://idp.test', subject: 'alice', audience: 'https://api.test', scopes: 'api' };

describe('delegatedTokenUsableUntil', () => {
  it.each([
    ['a 600 s token: 30 s early', 600_000, 570_000],
    ['a 3600 s token: still 30 s early (the cap)', 3_600_000, 3_570_000],
    ['a 60 s token: a tenth of its life, 6 s early', 60_000, 54_000],
    ['a token already expired', 0, 0],
  ])('%s', (_name, lifetime, usable) => {
    expect(delegatedTokenUsableUntil(token(1_000_000 + lifetime), 1_000_000)).toBe(1_000_000 + usable);
  });

  it('a token without an expiry is not cached', () => {
    expect(delegatedTokenUsableUntil(token(undefined), 0)).toBeUndefined();
  });
});

describe('DelegatedTokenCache', () => {
  it('shares one exchange among identical calls in flight, and a failure with all of them (then forgets it)', async () => {
    const cache = new DelegatedTokenCache({ now: () => 0 });
    let calls = 0;
    let fail!: (error: Error) => void;
    const exchange = () => new Promise<DelegatedToken>((_resolve, reject) => {
      calls += 1;
      fail = reject;
    });
    const waiting = Array.from({ length: 5 }, () => cache.get(key, exchange));
    fail(new Error('refused'));
    const outcomes = await Promise.allSettled(waiting);
    expect(calls).toBe(1);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect((await cache.get(key, async () => token(60_000))).from).toBe('exchange');
    expect(calls).toBe(1);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new DelegatedTokenCache({ now: () => 0, maxEntries: 2 });
    for (const subject of ['a', 'b', 'c']) await cache.get({ ...key, subject }, async () => token(600_000, subject));
    expect(cache.size).toBe(2);
    expect((await cache.get({ ...key, subject: 'a' }, async () => token(600_000, 'a2'))).from).toBe('exchange');
    expect((await cache.get({ ...key, subject: 'c' }, async () => token(600_000, 'c2'))).from).toBe('cache');
  });
});
