import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

type SuggestSimilar = (word: string, candidates: string[]) => string;

const require = createRequire(import.meta.url);
let commanderSuggestSimilar: SuggestSimilar | undefined;

/**
 * `(Did you mean X?)` (or `(Did you mean one of X, Y?)`) for a mistyped name, '' when no candidate
 * is close. This is commander's own suggestSimilar, the one behind its suggestion for a typo'd CLI
 * flag or command, so a config.json key is suggested exactly as a flag is: one implementation.
 * Commander does not export it, so it is loaded from beside commander's entry point, on first use
 * (only an error pays for it); test/config/suggest-similar.test.ts fails if an upgrade moves it.
 */
export function suggestSimilar(word: string, candidates: readonly string[]): string {
  commanderSuggestSimilar ??= (require(join(dirname(require.resolve('commander')), 'lib', 'suggestSimilar.js')) as { suggestSimilar: SuggestSimilar }).suggestSimilar;
  return commanderSuggestSimilar(word, [...candidates]).trim();
}
