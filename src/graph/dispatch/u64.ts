import { ToolgraphError } from '../../errors/index.ts';

export const U64_MAX = 18446744073709551615n;

const DECIMAL = /^[1-9][0-9]*$/;

function describeGot(raw: string): string {
  return raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
}

export function invalidId(field: string, got: string): ToolgraphError {
  return new ToolgraphError('TG_REQUEST_INVALID',
    `${field}: expected a positive unsigned 64-bit integer (1 to ${U64_MAX}) as a JSON integer or a decimal string without leading zeros, got ${describeGot(got)}.`,
    { details: { field, pointer: `/${field}`, expected: `integer 1..${U64_MAX}`, got: describeGot(got) } });
}

/**
 * Reads a u64 from its exact decimal text (the JSON source of a number, or a string's contents).
 * Fractions, exponents, signs, leading zeros, 0 and values above 2^64−1 are refused.
 */
export function parseU64(text: string, field: string, shown: string = text): bigint {
  if (!DECIMAL.test(text) || text.length > 20) throw invalidId(field, shown);
  const value = BigInt(text);
  if (value > U64_MAX) throw invalidId(field, shown);
  return value;
}
