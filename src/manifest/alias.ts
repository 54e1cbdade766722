import { ToolgraphError } from '../errors/index.ts';
import { ALIAS_MAX_LENGTH } from './limits.ts';
import { sha256Hex } from '../digest/index.ts';

/** Source names: a letter, then up to 63 letters, digits, `_` or `-` (the graph-name rule). */
const SOURCE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export function assertSourceName(name: string): void {
  if (!SOURCE_NAME_PATTERN.test(name)) {
    throw new ToolgraphError('TG_BAD_REQUEST', `A catalogue source name must match ${SOURCE_NAME_PATTERN.source}; got ${JSON.stringify(name)}.`);
  }
}

/** Keeps an alias within 128 characters: past it, 115 characters, `-`, and 12 hex of the digest of the whole. */
export function fitAlias(text: string): string {
  if (text.length <= ALIAS_MAX_LENGTH) return text;
  return `${text.slice(0, ALIAS_MAX_LENGTH - 13)}-${sha256Hex(text).slice(0, 12)}`;
}

/** The alias an operation gets when no other operation of its source shares it: `<source>-<operation>`, lowercased. */
function baseAlias(source: string, operation: string): string {
  return `${source}-${operation}`.toLowerCase();
}

/**
 * Aliases for the operations of one source (the rule in docs/catalogue.md). Operations whose base
 * aliases collide (a Query and a Mutation field of one name, or names differing only in case) are
 * ordered by (operation, schema digest); the first keeps the base alias and each other one gets
 * `-` and the first 8 hex of its schema digest. The result depends only on the source, so the alias
 * of an operation is stable however the rest of the catalogue changes.
 */
export function assignAliases(source: string, operations: readonly { operation: string; schemaSha256: string }[]): string[] {
  const groups = new Map<string, number[]>();
  operations.forEach((op, index) => {
    const base = baseAlias(source, op.operation);
    const group = groups.get(base);
    if (group) group.push(index);
    else groups.set(base, [index]);
  });
  const aliases = new Array<string>(operations.length);
  for (const [base, members] of groups) {
    const ordered = [...members].sort((a, b) => compare(operations[a]!, operations[b]!));
    ordered.forEach((index, rank) => {
      aliases[index] = fitAlias(rank === 0 ? base : `${base}-${operations[index]!.schemaSha256.slice(0, 8)}`);
    });
  }
  return aliases;
}

function compare(a: { operation: string; schemaSha256: string }, b: { operation: string; schemaSha256: string }): number {
  if (a.operation !== b.operation) return a.operation < b.operation ? -1 : 1;
  return a.schemaSha256 < b.schemaSha256 ? -1 : a.schemaSha256 > b.schemaSha256 ? 1 : 0;
}
