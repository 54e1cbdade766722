import type { SchemaObject } from './schema-violation.ts';

export interface DescribeSchemaOptions {
  /** Phrases for `$ref` targets, by the last segment of the reference (`U64` → "a positive …"). */
  readonly refs?: Readonly<Record<string, string>>;
  /** Name an object's required properties ("an object with id, graph") rather than "an object". */
  readonly namesRequired?: boolean;
}

/**
 * What a subschema accepts, in words, for "expected …" messages: "an integer from 1 to 16777216",
 * "a string of at most 128 characters matching ^…$", "one of get, search", "a string or null".
 */
export function describeSchema(schema: SchemaObject, options: DescribeSchemaOptions = {}): string {
  if ('const' in schema) return `exactly ${JSON.stringify(schema['const'])}`;
  if (Array.isArray(schema['enum'])) return `one of ${schema['enum'].map((v) => JSON.stringify(v)).join(', ')}`;
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const name = ref.split('/').at(-1) ?? '';
    return options.refs?.[name] ?? `a ${name}`;
  }
  const type = schema['type'];
  const types = Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
  if (types.length === 0) return 'a valid value';
  return types.map((t) => describeType(t, schema, options)).join(' or ');
}

function describeType(type: string, schema: SchemaObject, options: DescribeSchemaOptions): string {
  if (type === 'integer' || type === 'number') return describeNumber(type, schema);
  if (type === 'string') return describeString(schema);
  if (type === 'object') {
    const required = Array.isArray(schema['required']) ? schema['required'] : [];
    return options.namesRequired === true && required.length > 0 ? `an object with ${required.join(', ')}` : 'an object';
  }
  if (type === 'array') return 'an array';
  if (type === 'boolean') return 'a boolean';
  if (type === 'null') return 'null';
  return `a ${type}`;
}

function describeString(schema: SchemaObject): string {
  const min = schema['minLength'];
  const max = schema['maxLength'];
  const pattern = schema['pattern'];
  if (min === 1 && max === undefined && pattern === undefined) return 'a non-empty string';
  const parts = ['a string'];
  if (typeof min === 'number' && typeof max === 'number') parts.push(`of ${min} to ${max} characters`);
  else if (typeof max === 'number') parts.push(`of at most ${max} characters`);
  else if (typeof min === 'number') parts.push(`of at least ${min} characters`);
  if (typeof pattern === 'string') parts.push(`matching ${pattern}`);
  return parts.join(' ');
}

function describeNumber(type: 'integer' | 'number', schema: SchemaObject): string {
  const noun = type === 'integer' ? 'integer' : 'number';
  const article = type === 'integer' ? 'an' : 'a';
  const min = schema['minimum'];
  const max = schema['maximum'];
  if (typeof min === 'number' && typeof max === 'number') {
    return min === max ? `the ${noun} ${min}` : `${article} ${noun} from ${min} to ${max}`;
  }
  if (typeof min === 'number') return `${article} ${noun} of at least ${min}`;
  if (typeof max === 'number') return `${article} ${noun} of at most ${max}`;
  return `${article} ${noun}`;
}
