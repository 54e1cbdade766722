import { describe, expect, it } from 'vitest';
import { suggestSimilar } from '../../src/config/suggest-similar.ts';

describe('suggestSimilar (commander\'s, shared by CLI flags and config.json keys)', () => {
  it.each([
    ['store_mnt', ['store_mount', 'store_url', 'store_role'], '(Did you mean store_mount?)'],
    ['--prot', ['--port', '--host'], '(Did you mean --port?)'],
    ['store_rol', ['store_role', 'store_roll'], '(Did you mean one of store_role, store_roll?)'],
    ['zzzzzzzzzzzz', ['store_mount', 'port'], ''],
  ] as const)('%s', (word, candidates, want) => {
    expect(suggestSimilar(word, candidates)).toBe(want);
  });
});
