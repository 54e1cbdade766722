import { parse as parseYaml } from 'yaml';
import { ToolgraphError } from '../../errors/index.ts';
import type { JsonValue } from '../canonical-json.ts';
import type { JsonSchema, OperationSchema, SchemaSource } from '../schema-source.ts';
import { sha256Hex } from '../../digest/index.ts';
import { decodePointerSegment } from '../../validation/index.ts';
import { resolveLocalRef } from './json-pointer.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const PARAMETER_LOCATIONS = ['path', 'query', 'header', 'cookie'] as const;
const SCHEMA_REF_PREFIX = '#/components/schemas/';
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Obj = Record<string, unknown>;

/**
 * Every operation of an OpenAPI 3.1 document (YAML or JSON). Input: an object with one member per
 * parameter location in use (`path`, `query`, `header`, `cookie`, each an object of its parameters)
 * plus `body` (the request body schema). Output: the schema of the lowest 2xx response (`2XX` when
 * only the range is given). References to `#/components/schemas/X` become `#/$defs/X`, with X copied
 * into `$defs`, so recursive types stay recursive. The operation name is the `operationId`; an
 * operation without one is named `METHOD /path`, which the name check then reports.
 */
export interface OpenApiSourceOptions {
  /**
   * Reads a document named by a non-local `$ref` (e.g. `schema-manifest.schema.json`), so its schema is
   * inlined; without it, or when it returns undefined, the reference is kept as written.
   */
  resolveExternal?: (uri: string) => unknown;
}

export function openApiSource(name: string, documentBytes: string | Uint8Array, options: OpenApiSourceOptions = {}): SchemaSource {
  const bytes = typeof documentBytes === 'string' ? Buffer.from(documentBytes, 'utf8') : documentBytes;
  const document = parseYaml(Buffer.from(bytes).toString('utf8')) as unknown;
  if (!isObj(document) || !isObj(document['paths'])) {
    throw new ToolgraphError('TG_BAD_REQUEST', `OpenAPI source ${name}: expected a document with a "paths" object.`);
  }
  const operations: OperationSchema[] = [];
  for (const [path, rawItem] of Object.entries(document['paths'])) {
    const item = deref(document, rawItem);
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObj(operation)) continue;
      operations.push(convertOperation({ document, resolveExternal: options.resolveExternal }, path, method, item, operation));
    }
  }
  return { name, sourceSha256: sha256Hex(bytes), operations };
}

interface Context {
  readonly document: Obj;
  readonly resolveExternal: ((uri: string) => unknown) | undefined;
}

function convertOperation(context: Context, path: string, method: string, item: Obj, operation: Obj): OperationSchema {
  const { document } = context;
  const label = `${method.toUpperCase()} ${path}`;
  const inputRefs = new SchemaConverter(context);
  const groups = new Map<string, { properties: Obj; required: string[] }>();
  for (const parameter of mergeParameters(document, item, operation)) {
    const where = String(parameter['in']);
    const name = String(parameter['name']);
    let group = groups.get(where);
    if (!group) groups.set(where, (group = { properties: {}, required: [] }));
    group.properties[name] = withDescription(inputRefs.convert(parameterSchema(document, parameter)), parameter['description']);
    if (parameter['required'] === true || where === 'path') group.required.push(name);
  }
  const properties: Obj = {};
  const required: string[] = [];
  for (const where of PARAMETER_LOCATIONS) {
    const group = groups.get(where);
    if (!group) continue;
    const open = where === 'header' || where === 'cookie';
    properties[where] = {
      type: 'object',
      properties: group.properties,
      ...(group.required.length > 0 ? { required: group.required } : {}),
      ...(open ? {} : { additionalProperties: false }),
    };
    if (group.required.length > 0) required.push(where);
  }
  const body = deref(document, operation['requestBody']);
  if (isObj(body)) {
    properties['body'] = withDescription(inputRefs.convert(mediaSchema(document, body['content'])), body['description']);
    if (body['required'] === true) required.push('body');
  }
  const input: Obj = {
    $schema: DIALECT,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  const outputRefs = new SchemaConverter(context);
  const output: Obj = { $schema: DIALECT, ...successSchema(document, operation, outputRefs) };
  const inputDefs = inputRefs.defs();
  if (inputDefs) input['$defs'] = inputDefs;
  const outputDefs = outputRefs.defs();
  if (outputDefs) output['$defs'] = { ...(isObj(output['$defs']) ? output['$defs'] : {}), ...outputDefs };
  const text = [operation['summary'], operation['description']].filter((t): t is string => typeof t === 'string' && t.length > 0);
  return {
    operation: typeof operation['operationId'] === 'string' ? operation['operationId'] : label,
    description: [label, ...text].join(': '),
    input: input as JsonSchema,
    output: output as JsonSchema,
  };
}

/** Path-item parameters, overridden by operation parameters of the same name and location. */
function mergeParameters(document: Obj, item: Obj, operation: Obj): Obj[] {
  const merged = new Map<string, Obj>();
  for (const list of [item['parameters'], operation['parameters']]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = deref(document, raw);
      if (isObj(parameter) && typeof parameter['name'] === 'string' && typeof parameter['in'] === 'string') {
        merged.set(`${parameter['in']}\u0000${parameter['name']}`, parameter);
      }
    }
  }
  return [...merged.values()];
}

function parameterSchema(document: Obj, parameter: Obj): unknown {
  if (parameter['schema'] !== undefined) return parameter['schema'];
  return mediaSchema(document, parameter['content']);
}

/** The schema of the JSON media type of a content map (any `+json`, else the first one); `{}` when none. */
function mediaSchema(document: Obj, content: unknown): unknown {
  if (!isObj(content)) return {};
  const types = Object.keys(content);
  const chosen = types.find((t) => t === 'application/json') ?? types.find((t) => /\+json$/.test(t)) ?? types[0];
  if (chosen === undefined) return {};
  const media = deref(document, content[chosen]);
  return isObj(media) && media['schema'] !== undefined ? media['schema'] : {};
}

function successSchema(document: Obj, operation: Obj, converter: SchemaConverter): Obj {
  const responses = operation['responses'];
  if (!isObj(responses)) return { description: 'The operation documents no success response.' };
  const codes = Object.keys(responses).filter((c) => /^2\d\d$/.test(c)).sort();
  const code = codes[0] ?? (Object.hasOwn(responses, '2XX') ? '2XX' : undefined);
  if (code === undefined) return { description: 'The operation documents no success response.' };
  const response = deref(document, responses[code]);
  if (!isObj(response) || !isObj(response['content']) || Object.keys(response['content']).length === 0) {
    return { type: 'null', description: `The ${code} response has no body.` };
  }
  const schema = converter.convert(mediaSchema(document, response['content']));
  return isObj(schema) ? withDescription(schema, response['description']) as Obj : { allOf: [schema] };
}

/**
 * Copies an OpenAPI schema, rewriting `#/components/schemas/...` references to `#/$defs/...` and
 * collecting the components they reach (transitively) for `$defs`. Other local references are inlined
 * once; external ones are kept as written.
 */
class SchemaConverter {
  readonly #document: Obj;
  readonly #components: Obj;
  readonly #defs = new Map<string, JsonValue>();
  readonly #pending: string[] = [];
  readonly #inlining = new Set<string>();

  readonly #resolveExternal: ((uri: string) => unknown) | undefined;

  constructor(context: Context) {
    this.#document = context.document;
    this.#resolveExternal = context.resolveExternal;
    const components = context.document['components'];
    this.#components = isObj(components) && isObj(components['schemas']) ? components['schemas'] : {};
  }

  convert(schema: unknown): JsonValue {
    return this.#copy(schema);
  }

  /** The `$defs` object for everything converted so far, or undefined when nothing was referenced. */
  defs(): Record<string, JsonValue> | undefined {
    while (this.#pending.length > 0) {
      const name = this.#pending.shift()!;
      this.#defs.set(name, this.#copy(this.#components[name]));
    }
    if (this.#defs.size === 0) return undefined;
    return Object.fromEntries([...this.#defs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  #copy(value: unknown): JsonValue {
    if (Array.isArray(value)) return value.map((v) => this.#copy(v));
    if (!isObj(value)) return value === undefined ? null : (value as JsonValue);
    const out: Record<string, JsonValue> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') {
        const rewritten = this.#ref(child);
        if (typeof rewritten === 'string') out[key] = rewritten;
        else return { ...rewritten, ...this.#copyRest(value) };
      } else {
        out[key] = this.#copy(child);
      }
    }
    return out;
  }

  #copyRest(value: Obj): Record<string, JsonValue> {
    const rest: Record<string, JsonValue> = {};
    for (const [key, child] of Object.entries(value)) if (key !== '$ref') rest[key] = this.#copy(child);
    return rest;
  }

  /** A rewritten reference string, or the inlined target of a local reference outside the components. */
  #ref(ref: string): string | Record<string, JsonValue> {
    if (ref.startsWith(SCHEMA_REF_PREFIX)) {
      const rest = ref.slice(SCHEMA_REF_PREFIX.length);
      const slash = rest.indexOf('/');
      const segment = slash === -1 ? rest : rest.slice(0, slash);
      const name = decodePointerSegment(decodeURIComponent(segment));
      if (Object.hasOwn(this.#components, name)) {
        if (!this.#defs.has(name) && !this.#pending.includes(name)) {
          this.#defs.set(name, null);
          this.#pending.push(name);
        }
        return `#/$defs/${rest}`;
      }
    }
    if (ref.startsWith('#/') && !this.#inlining.has(ref)) {
      const target = resolveLocalRef(this.#document, ref);
      if (isObj(target)) {
        this.#inlining.add(ref);
        try {
          const copied = this.#copy(target);
          if (isObj(copied)) return copied as Record<string, JsonValue>;
        } finally {
          this.#inlining.delete(ref);
        }
      }
    }
    if (!ref.startsWith('#') && this.#resolveExternal) {
      const hash = ref.indexOf('#');
      const external = this.#resolveExternal(hash === -1 ? ref : ref.slice(0, hash));
      const target = hash === -1 ? external : resolveLocalRef(external, ref.slice(hash));
      // Copied verbatim: references inside it are relative to that document, not this one.
      if (isObj(target)) return JSON.parse(JSON.stringify(target)) as Record<string, JsonValue>;
    }
    return ref;
  }
}

function withDescription(schema: JsonValue, description: unknown): JsonValue {
  if (typeof description !== 'string' || description.length === 0 || !isObj(schema) || 'description' in schema) return schema;
  return { ...schema, description };
}

/** Follows `$ref` chains of non-schema objects (parameters, request bodies, responses, path items). */
function deref(document: Obj, value: unknown): unknown {
  let current = value;
  for (let hops = 0; hops < 32 && isObj(current) && typeof current['$ref'] === 'string'; hops++) {
    const target = resolveLocalRef(document, current['$ref']);
    if (target === undefined) return current;
    current = target;
  }
  return current;
}

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
