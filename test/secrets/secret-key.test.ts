import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kvDataPath, secretKeySegments } from '../../src/secrets/index.ts';

const segment = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' })
  .filter((s) => !s.includes('/') && s !== '.' && s !== '..' && !/[\u0000-\u001f\u007f]/.test(s));

describe('secret keys', () => {
  it.each([
    ['team/db', ['team', 'db']],
    ['a', ['a']],
    ['with space/é/%2F', ['with space', 'é', '%2F']],
    ['...', ['...']],
  ])('%j splits into %j', (key, want) => {
    expect(secretKeySegments(key)).toEqual(want);
  });

  it.each([
    ['', 'an empty key'],
    ['/a', 'an empty segment'],
    ['a/', 'an empty segment'],
    ['a//b', 'an empty segment'],
    ['a/../b', 'a ".." segment'],
    ['./a', 'a "." segment'],
    ['a\tb', 'a control character'],
  ])('%j is refused: %s', (key, problem) => {
    expect(() => secretKeySegments(key)).toThrow(expect.objectContaining({ code: 'TG_BAD_REQUEST', message: expect.stringContaining(`got ${problem}`) }));
  });

  it('every valid key becomes a path whose segments decode back to mount, data, prefix and key', () => {
    fc.assert(fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.array(segment, { maxLength: 3 }), (key, prefix) => {
      const path = kvDataPath(['secret'], prefix, secretKeySegments(key.join('/')));
      expect(path.split('/').map(decodeURIComponent)).toEqual(['secret', 'data', ...prefix, ...key]);
    }));
  });

  it('a key made of any segments including "..", "." or "" is refused', () => {
    fc.assert(fc.property(fc.array(segment, { maxLength: 3 }), fc.constantFrom('..', '.', ''), fc.array(segment, { maxLength: 3 }), (before, bad, after) => {
      expect(() => secretKeySegments([...before, bad, ...after].join('/'))).toThrow();
    }));
  });
});
