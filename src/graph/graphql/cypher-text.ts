import { ToolgraphError } from '../../errors/index.ts';
import { CYPHER_RESERVED_WORDS } from '../cypher/index.ts';

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name as Cypher text: bare when it is a plain identifier and no reserved word, else backtick-quoted. */
export function cypherName(name: string): string {
  if (PLAIN_NAME.test(name) && !CYPHER_RESERVED_WORDS.has(name.toUpperCase())) return name;
  return `\`${name.replaceAll('`', '``')}\``;
}

// With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
const LONE_SURROGATE = /\p{Surrogate}/u;

function cypherString(text: string): string {
  if (LONE_SURROGATE.test(text)) {
    throw new ToolgraphError('TG_VALUE_INVALID', 'A string argument holds a lone surrogate, which no Cypher text (or JSON answer) can carry.');
  }
  let out = "'";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/**
 * A GraphQL argument value (a scalar after coercion) as a Cypher literal that parses back to the
 * same value: strings single-quoted with escapes, numbers in JavaScript's shortest form.
 */
export function cypherLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return cypherString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return Object.is(value, -0) ? '0' : String(value);
  if (Array.isArray(value)) return `[${value.map(cypherLiteral).join(', ')}]`;
  throw new ToolgraphError('TG_VALUE_INVALID', `No Cypher literal for ${typeof value} values.`);
}
