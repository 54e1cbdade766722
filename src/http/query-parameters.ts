import type { Validator } from '../../generated/validators/validator.ts';
import { ToolgraphError } from '../errors/index.ts';

/** The keywords of a parameter's schema (generated/openapi/parameters.ts) that a refusal states. */
interface ParameterSchema {
  readonly type?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

/**
 * The query parameters an operation declares (`schemas`, from generated/openapi/parameters.ts), read
 * from `url` and checked by the operation's generated validator. Each is the first value sent (an
 * absent one stays absent); an `integer` one written in decimal digits becomes its number, anything
 * else stays the text that came for the validator to refuse. A refusal is TG_BAD_REQUEST naming the
 * first parameter refused (in the document's order), what the document allows and what came.
 */
export function readQueryParameters<T>(url: string | undefined, schemas: Readonly<Record<string, ParameterSchema>>, validate: Validator<T>): T {
  const raw = url ?? '';
  const query = new URLSearchParams(raw.includes('?') ? raw.slice(raw.indexOf('?') + 1) : '');
  const values: Record<string, string | number> = {};
  const texts = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const text = query.get(name);
    if (text === null) continue;
    texts.set(name, text);
    values[name] = schema.type === 'integer' && /^[0-9]+$/.test(text) ? Number(text) : text;
  }
  if (validate(values)) return values;
  const error = validate.errors?.[0];
  const missing = error?.params['missingProperty'];
  const name = typeof missing === 'string' ? missing : (error?.instancePath.slice(1) ?? '');
  const schema = schemas[name] ?? {};
  const text = texts.get(name);
  const got = text === undefined ? 'none' : error?.keyword === 'maxLength' || error?.keyword === 'minLength' ? String([...text].length) : JSON.stringify(text);
  throw new ToolgraphError('TG_BAD_REQUEST', `${name}: expected ${expected(schema)}, got ${got}.`);
}

/** What a parameter's schema allows, in words. */
function expected(schema: ParameterSchema): string {
  if (schema.type === 'integer') {
    if (schema.minimum !== undefined && schema.maximum !== undefined) return `an integer from ${schema.minimum} to ${schema.maximum}`;
    if (schema.minimum !== undefined) return `an integer of at least ${schema.minimum}`;
    return 'an integer';
  }
  const { minLength, maxLength, pattern } = schema;
  if (pattern !== undefined) return `text matching ${pattern}`;
  if (minLength !== undefined && maxLength !== undefined) return `${minLength} to ${maxLength} characters`;
  if (maxLength !== undefined) return `at most ${maxLength} characters`;
  if (minLength !== undefined) return `at least ${minLength} character${minLength === 1 ? '' : 's'}`;
  return 'a value';
}
