import { readFileSync } from 'node:fs';
import { validate as validateOpenApi } from '@hyperjump/json-schema/openapi-3-1';
import type { Json } from '@hyperjump/json-pointer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  validateCallToolRequest,
  validateCallToolResponse,
  validateDispatchRequest,
  validateErrorBody,
  validateGetGraphAccessPathParameters,
  validateGetSchemaFragmentPathParameters,
  validateGetSchemaManifestResponse,
  validateNativeRequest,
  validateNativeResponse,
  validateSearchSchemasQueryParameters,
  validateSearchSchemasResponse,
} from '../../generated/validators/openapi.ts';
import { PARAMETERS } from '../../generated/openapi/parameters.ts';
import { ERROR_CODES } from '../../src/errors/index.ts';

type Operation = { operationId?: string; summary?: string; description?: string };
const document = parse(readFileSync(new URL('../../specs/tool-server.openapi.yaml', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const manifestSchema = JSON.parse(readFileSync(new URL('../../specs/schema-manifest.schema.json', import.meta.url), 'utf8')) as {
  properties: { operation: { pattern: string; maxLength: number } };
};
const operations = Object.entries(document.paths).flatMap(([route, item]) =>
  Object.entries(item).filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method)).map(([method, op]) => ({ route, method, op })),
);
const U64_MAX = 18446744073709551615n;

describe('specs/tool-server.openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const output = await validateOpenApi('https://spec.openapis.org/oas/3.1/schema-base', document as unknown as Json, 'BASIC');
    expect(output.valid ? [] : (output.errors ?? [])).toEqual([]);
    expect(output.valid).toBe(true);
  });

  it('documents every route the brief names, with the agreed operationIds', () => {
    expect(operations.map(({ method, route, op }) => `${method.toUpperCase()} ${route} ${op.operationId}`).sort()).toEqual([
      'GET / serviceIndex',
      'GET /graphql/subscribe subscribeGraph',
      'GET /graphs/{graph}/access getGraphAccess',
      'GET /graphs/{graph}/namespace getGraphNamespace',
      'GET /healthz health',
      'GET /livez liveness',
      'GET /schemas/search searchSchemas',
      'GET /schemas/{schema_sha256} getSchemaManifest',
      'GET /schemas/{schema_sha256}/fragments/{index} getSchemaFragment',
      'POST /dispatch dispatch',
      'POST /mcp/tools/call callTool',
      'PUT /graphs/{graph}/access putGraphAccess',
      'PUT /graphs/{graph}/namespace putGraphNamespace',
    ]);
  });

  it.each(operations.map(({ method, route, op }) => [`${method} ${route}`, op] as const))('%s has an operationId fit to be a catalogue operation name, a summary and a description', (_name, op) => {
    const pattern = new RegExp(manifestSchema.properties.operation.pattern, 'u');
    expect(op.operationId).toMatch(pattern);
    expect([...(op.operationId ?? '')].length).toBeLessThanOrEqual(manifestSchema.properties.operation.maxLength);
    expect(op.summary?.length).toBeGreaterThan(0);
    expect(op.description?.length).toBeGreaterThan(20);
  });

  it('has unique operationIds', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('generated OpenAPI validators', () => {
  const graphql = { GraphQl: { query: '{ Person(first: 2) { id } }', variables: { a: 1 } } };
  const accepted: Array<[string, unknown]> = [
    ['a GraphQl request with a JSON integer id', { id: 1, graph: 'people', method: graphql }],
    ['the largest decimal-string id', { id: U64_MAX.toString(), graph: 'people', method: graphql }],
    ['null agent_id and null variables', { id: 7, graph: 'g', agent_id: null, method: { GraphQl: { query: '{ a }', variables: null } } }],
    ['an agent_id', { id: '42', graph: 'g', agent_id: 'agent-1', method: { GraphQl: { query: '{ a }' } } }],
    ['a Cypher request', { id: 3, graph: 'g', method: { Cypher: { query: 'MATCH (n:Person) RETURN n', params: { x: 1 } } } }],
  ];
  const refused: Array<[string, unknown]> = [
    ['id 0', { id: 0, graph: 'g', method: graphql }],
    ['negative id', { id: -1, graph: 'g', method: graphql }],
    ['fractional id', { id: 1.5, graph: 'g', method: graphql }],
    ['id string past u64', { id: (U64_MAX + 1n).toString(), graph: 'g', method: graphql }],
    ['id string with a leading zero', { id: '01', graph: 'g', method: graphql }],
    ['id string "0"', { id: '0', graph: 'g', method: graphql }],
    ['missing graph', { id: 1, method: graphql }],
    ['graph not a string', { id: 1, graph: 5, method: graphql }],
    ['missing method', { id: 1, graph: 'g' }],
    ['two methods at once', { id: 1, graph: 'g', method: { ...graphql, Cypher: { query: 'x' } } }],
    ['an unknown method', { id: 1, graph: 'g', method: { Sql: { query: 'select 1' } } }],
    ['GraphQl without query', { id: 1, graph: 'g', method: { GraphQl: { variables: {} } } }],
    ['variables as an array', { id: 1, graph: 'g', method: { GraphQl: { query: '{a}', variables: [] } } }],
    ['an extra top-level field', { id: 1, graph: 'g', method: graphql, extra: true }],
    ['agent_id a number', { id: 1, graph: 'g', agent_id: 5, method: graphql }],
  ];

  it.each(accepted)('validateNativeRequest accepts %s', (_name, value) => {
    expect(validateNativeRequest(value), JSON.stringify(validateNativeRequest.errors)).toBe(true);
    expect(validateDispatchRequest(value)).toBe(true);
  });

  it.each(refused)('validateNativeRequest refuses %s', (_name, value) => {
    expect(validateNativeRequest(value)).toBe(false);
    expect(validateNativeRequest.errors?.length).toBeGreaterThan(0);
  });

  it('accepts exactly the decimal strings of 1..2^64-1 as ids', () => {
    const idOk = (id: string) => validateNativeRequest({ id, graph: 'g', method: graphql });
    fc.assert(
      fc.property(fc.bigInt({ min: -10n, max: U64_MAX * 2n }), (n) => {
        expect(idOk(n.toString())).toBe(n >= 1n && n <= U64_MAX);
      }),
      { numRuns: 2000 },
    );
    for (let digit = 0n; digit < 20n; digit += 1n) {
      expect(idOk((U64_MAX - digit).toString())).toBe(true);
      expect(idOk((U64_MAX + 1n + digit * 10n ** 5n).toString())).toBe(false);
    }
  });

  it('validates the other bodies', () => {
    const hex = 'cd'.repeat(32);
    const manifest = { version: 1, operation: 'callTool', alias: 'call-tool', source_sha256: hex, schema_sha256: hex, input_schema_sha256: hex, output_schema_sha256: hex, schema_bytes: 10, fragment_count: 1, manifest_uri: 'u', fragment_uri_template: 't' };
    expect(validateCallToolRequest({ name: 'graph', arguments: { action: 'query', graph: 'g' } })).toBe(true);
    // An operation tool takes its own arguments, so the body only requires an object and a non-empty action when one is given.
    expect(validateCallToolRequest({ name: 'persisted-personpage', arguments: { first: 2 } })).toBe(true);
    expect(validateCallToolRequest({ name: 'graph', arguments: { action: '' } })).toBe(false);
    expect(validateCallToolRequest({ name: 'graph', arguments: 'query' })).toBe(false);
    expect(validateCallToolRequest({ name: 'graph' })).toBe(false);
    expect(validateCallToolResponse({ content: [{ type: 'text', text: 'ok' }], structuredContent: { n: 1 }, isError: false })).toBe(true);
    expect(validateCallToolResponse({ content: [{ type: 'image', data: '' }] })).toBe(false);
    expect(validateSearchSchemasResponse({ results: [{ manifest, score: 1.5, description: 'Call a tool' }] })).toBe(true);
    expect(validateSearchSchemasResponse({ results: [{ manifest: { ...manifest, version: 2 }, score: 1, description: '' }] })).toBe(false);
    expect(validateGetSchemaManifestResponse(manifest)).toBe(true);
    expect(validateNativeResponse({ id: 1, result: { data: { a: 1 } } })).toBe(true);
    expect(validateNativeResponse({ id: '9', error: { code: 'TG_GRAPH_NOT_FOUND', message: 'No graph has this name.' } })).toBe(true);
    expect(validateNativeResponse({ id: 1, result: null, error: { code: 'TG_INTERNAL', message: 'x' } })).toBe(false);
  });

  it('validates each operation\'s path and query parameters as the document declares them', () => {
    expect(PARAMETERS.searchSchemas.query).toEqual({ q: { type: 'string', maxLength: 256 }, limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 } });
    expect(validateSearchSchemasQueryParameters({})).toBe(true);
    expect(validateSearchSchemasQueryParameters({ q: 'a'.repeat(256), limit: 100 })).toBe(true);
    expect(validateSearchSchemasQueryParameters({ q: 'a'.repeat(257) })).toBe(false);
    expect(validateSearchSchemasQueryParameters({ limit: 0 })).toBe(false);
    expect(validateSearchSchemasQueryParameters({ limit: '10' })).toBe(false);
    const sha = 'ab'.repeat(32);
    expect(validateGetSchemaFragmentPathParameters({ schema_sha256: sha, index: '4099' })).toBe(true);
    expect(validateGetSchemaFragmentPathParameters({ schema_sha256: sha, index: '01' })).toBe(false);
    expect(validateGetSchemaFragmentPathParameters({ schema_sha256: sha.toUpperCase(), index: '0' })).toBe(false);
    expect(validateGetSchemaFragmentPathParameters({ schema_sha256: sha })).toBe(false);
    // Path-item parameters count for every operation of the path.
    expect(validateGetGraphAccessPathParameters({ graph: 'demo' })).toBe(true);
    expect(validateGetGraphAccessPathParameters({ graph: 'not a name' })).toBe(false);
  });

  it('accepts the ErrorBody of every error code', () => {
    for (const code of Object.keys(ERROR_CODES)) {
      expect(validateErrorBody({ error: { code, message: 'm', details: { a: 1 } } }), code).toBe(true);
    }
    expect(validateErrorBody({ error: { code: 'oops', message: 'm' } })).toBe(false);
  });
});
