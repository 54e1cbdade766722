import { beforeEach, describe, expect, it } from 'vitest';
import { validateNativeResponse } from '../../../generated/validators/openapi.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import {
  dispatch, parseNativeRequest, serializeNativeResponse, type NativeRequest, type Principal,
} from '../../../src/graph/dispatch/index.ts';

let engine: GraphEngine;
const reader: Principal = { subject: 'r', scopes: ['kg:read'] };
const writer: Principal = { subject: 'w', scopes: ['kg:write'] };

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'a', label: 'Person', props: { name: 'Ann' } }] });
});

function body(id: string, query = 'MATCH (p:Person) RETURN p.name', extra = ''): string {
  return `{"id":${id},"graph":"g","method":{"Cypher":{"query":${JSON.stringify(query)}${extra}}}}`;
}

describe('parseNativeRequest: ids', () => {
  it.each([
    ['18446744073709551615', 18446744073709551615n, 'integer'],
    ['9007199254740993', 9007199254740993n, 'integer'],
    ['1', 1n, 'integer'],
    ['"18446744073709551615"', 18446744073709551615n, 'string'],
    ['"42"', 42n, 'string'],
  ])('accepts %s exactly', (id, want, form) => {
    const request = parseNativeRequest(body(id));
    expect(request.id).toBe(want);
    expect(request.idForm).toBe(form);
  });

  it.each([
    ['0', '0'], ['-1', '-1'], ['1.5', '1.5'], ['1.0', '1.0'], ['1e3', '1e3'], ['18446744073709551616', '18446744073709551616'],
    ['"0"', '"0"'], ['"007"', '"007"'], ['"-3"', '"-3"'], ['"18446744073709551616"', '"18446744073709551616"'], ['" 1"', '" 1"'],
    ['null', 'nothing'], ['true', 'boolean true'], ['[1]', 'an array'],
  ])('refuses id %s naming the field, expected and got', (id, got) => {
    const error = (() => {
      try {
        parseNativeRequest(body(id));
      } catch (e) {
        return e as { code: string; message: string };
      }
      throw new Error('accepted');
    })();
    expect(error.code).toBe('TG_REQUEST_INVALID');
    expect(error.message).toMatch(/^id: expected a positive unsigned 64-bit integer \(1 to 18446744073709551615\)/);
    expect(error.message).toContain(`got ${got === 'nothing' ? 'null' : got}`);
  });

  it.each([
    ['not JSON', '{', 'not valid JSON'],
    ['array', '[]', 'body: expected a NativeRequest object'],
    ['missing graph', '{"id":1,"method":{"Cypher":{"query":"RETURN 1"}}}', 'graph: expected a non-empty string, got nothing'],
    ['unknown method', '{"id":1,"graph":"g","method":{"Sql":{"query":"x"}}}', 'method: expected an object with exactly one of GraphQl or Cypher'],
    ['two methods', '{"id":1,"graph":"g","method":{"Cypher":{"query":"x"},"GraphQl":{"query":"y"}}}', 'exactly one of'],
    ['extra field', '{"id":1,"graph":"g","method":{"Cypher":{"query":"x"}},"x":1}', 'x: expected no such field'],
    ['params not an object', body('1', 'RETURN 1', ',"params":[1]'), 'method.Cypher.params: expected an object or null, got an array'],
    ['agent_id a number', '{"id":1,"graph":"g","agent_id":5,"method":{"Cypher":{"query":"x"}}}', 'agent_id: expected a string or null'],
  ])('refuses %s', (_name, text, fragment) => {
    expect(() => parseNativeRequest(text)).toThrow(expect.objectContaining({ code: 'TG_REQUEST_INVALID', message: expect.stringContaining(fragment) }));
  });
});

describe('dispatch', () => {
  it('round-trips u64 ids exactly in the response', async () => {
    for (const id of ['18446744073709551615', '9007199254740993']) {
      const response = await dispatch(parseNativeRequest(body(id)), reader, { engine });
      const text = serializeNativeResponse(response);
      expect(text).toBe(`{"id":${id},"result":{"columns":["p.name"],"rows":[["Ann"]],"version":1}}`);
    }
    const asString = serializeNativeResponse(await dispatch(parseNativeRequest(body('"9007199254740993"')), reader, { engine }));
    expect(asString.startsWith('{"id":"9007199254740993",')).toBe(true);
  });

  it('answers responses that match the OpenAPI NativeResponse schema', async () => {
    const ok = JSON.parse(serializeNativeResponse(await dispatch(parseNativeRequest(body('7')), reader, { engine }))) as unknown;
    const bad = JSON.parse(serializeNativeResponse(await dispatch(parseNativeRequest(body('7', 'MATCH (')), reader, { engine }))) as unknown;
    expect(validateNativeResponse(ok)).toBe(true);
    expect(validateNativeResponse(bad)).toBe(true);
  });

  it('puts Cypher errors in the response, with line and column', async () => {
    const response = await dispatch(parseNativeRequest(body('3', 'MATCH (n)\nRETURN n.')), reader, { engine });
    expect(response).toMatchObject({ id: 3n, error: { code: 'TG_CYPHER_SYNTAX', message: expect.stringContaining('line 2, column 10') } });
    expect(serializeNativeResponse(response)).toMatch(/^\{"error":\{"code":"TG_CYPHER_SYNTAX","details":\{.*\},"message":".*"\},"id":3\}$/);
  });

  it('passes params and answers an unknown graph as an error', async () => {
    const withParams = await dispatch(parseNativeRequest(body('1', 'RETURN $x + 1 AS y', ',"params":{"x":41}')), reader, { engine });
    expect(withParams).toMatchObject({ result: { rows: [[42]] } });
    const missing = await dispatch({ ...parseNativeRequest(body('1')), graph: 'nope' }, reader, { engine });
    expect(missing).toMatchObject({ error: { code: 'TG_GRAPH_NOT_FOUND' } });
  });

  it.each<[string, string[], string, string | null]>([
    ['kg:read reads', ['kg:read'], 'MATCH (p) RETURN p.name', null],
    ['query:cypher reads', ['query:cypher'], 'MATCH (p) RETURN p.name', null],
    ['query:* reads', ['query:*'], 'MATCH (p) RETURN p.name', null],
    ['query:graphql does not read Cypher', ['query:graphql'], 'MATCH (p) RETURN p.name', 'TG_INSUFFICIENT_SCOPE'],
    ['no scopes', [], 'MATCH (p) RETURN p.name', 'TG_INSUFFICIENT_SCOPE'],
    ['kg:read cannot write', ['kg:read'], "CREATE (:Person {name: 'x'})", 'TG_INSUFFICIENT_SCOPE'],
    ['query:* cannot write', ['query:*', 'query:cypher'], "MATCH (p {id: 'a'}) SET p.x = 1", 'TG_INSUFFICIENT_SCOPE'],
    ['kg:write writes', ['kg:write'], "CREATE (:Person {name: 'x'})", null],
    ['kg:admin writes', ['kg:admin'], "MATCH (p {id: 'a'}) DETACH DELETE p", null],
    ['* writes', ['*'], "MATCH (p {id: 'a'}) SET p.x = 1", null],
  ])('scopes: %s', async (_name, scopes, query, code) => {
    const response = await dispatch(parseNativeRequest(body('5', query)), { subject: 's', scopes }, { engine });
    if (code === null) expect(response).toHaveProperty('result');
    else expect(response).toMatchObject({ error: { code } });
    if (code !== null) expect(engine.view('g').version).toBe(1);
  });

  it('a write bumps the version once and reports counters', async () => {
    const response = await dispatch(parseNativeRequest(body('9', "CREATE (a:Person {name: 'B'})-[:KNOWS]->(b:Person {name: 'C'})")), writer, { engine });
    expect(response).toMatchObject({ result: { version: 2, stats: { nodesCreated: 2, relationshipsCreated: 1 } } });
    expect(engine.view('g').version).toBe(2);
  });

  it('leaves GraphQl to a handler, and says so when none is wired', async () => {
    const request: NativeRequest = { id: 1n, idForm: 'integer', graph: 'g', agentId: 'agent-7', method: { GraphQl: { query: '{ Person { name } }', variables: null } } };
    const none = await dispatch(request, reader, { engine });
    expect(none).toMatchObject({ error: { code: 'TG_REQUEST_INVALID', message: expect.stringContaining('GraphQl method is not available yet') } });
    const seen: unknown[] = [];
    const wired = await dispatch(request, reader, { engine, graphql: async (call) => { seen.push(call); return { data: { ok: true } }; } });
    expect(wired).toMatchObject({ result: { data: { ok: true } } });
    expect(seen).toEqual([{ graph: 'g', query: '{ Person { name } }', variables: null, principal: reader, agentId: 'agent-7' }]);
  });

  it('hides unexpected faults behind TG_INTERNAL', async () => {
    const broken = { view: () => { throw new Error('secret detail'); }, commit: () => Promise.reject(new Error('x')) };
    const response = await dispatch(parseNativeRequest(body('2')), reader, { engine: broken });
    expect(response).toMatchObject({ error: { code: 'TG_INTERNAL', message: 'Internal server error.' } });
  });
});
