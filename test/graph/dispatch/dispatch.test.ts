import fc from 'fast-check';
import type { Principal } from '../../../src/principal/index.ts';
import { openAccess } from '../../support/open-access.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { validateNativeRequest, validateNativeResponse } from '../../../generated/validators/openapi.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { answerNativeRequest, dispatch, parseNativeRequest, serializeNativeResponse, type NativeRequest, type NativeResponse } from '../../../src/graph/dispatch/index.ts';

let engine: GraphEngine;
const reader: Principal = { subject: 'r', scopes: ['kg:read'] };
const writer: Principal = { subject: 'w', scopes: ['kg:write'] };

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  // The policy is version 1; the seed batch version 2.
  await openAccess(engine, 'g');
  await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'a', label: 'Person', props: { name: 'Ann' } }] });
});

/** The response as a client reads it (Cypher results travel as canonical JSON text). */
function answer(response: NativeResponse): unknown {
  return JSON.parse(serializeNativeResponse(response));
}

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
    ['null', 'nothing'], ['true', 'true'], ['[1]', 'a list of 1 item'],
  ])('refuses id %s naming the field, expected and got', (id, got) => {
    const error = (() => {
      try {
        parseNativeRequest(body(id));
      } catch (e) {
        return e as { code: string; message: string; details: { pointer: string } };
      }
      throw new Error('accepted');
    })();
    expect(error.code).toBe('TG_REQUEST_INVALID');
    expect(error.message).toMatch(/^id: expected a positive unsigned 64-bit integer \(1 to 18446744073709551615\)/);
    expect(error.message).toContain(`got ${got === 'nothing' ? 'null' : got}`);
    expect(error.details.pointer).toBe('/id');
  });

  it.each([
    ['array', '[]', 'body: expected a NativeRequest object'],
    ['missing graph', '{"id":1,"method":{"Cypher":{"query":"RETURN 1"}}}', 'graph: expected a non-empty string, got nothing'],
    ['unknown method', '{"id":1,"graph":"g","method":{"Sql":{"query":"x"}}}', 'method: expected an object with exactly one of GraphQl or Cypher'],
    ['two methods', '{"id":1,"graph":"g","method":{"Cypher":{"query":"x"},"GraphQl":{"query":"y"}}}', 'exactly one of'],
    ['extra field', '{"id":1,"graph":"g","method":{"Cypher":{"query":"x"}},"x":1}', 'x: expected no such field'],
    ['params not an object', body('1', 'RETURN 1', ',"params":[1]'), 'method.Cypher.params: expected an object or null, got a list of 1 item'],
    ['agent_id a number', '{"id":1,"graph":"g","agent_id":5,"method":{"Cypher":{"query":"x"}}}', 'agent_id: expected a string or null'],
  ])('refuses %s', (_name, text, fragment) => {
    expect(() => parseNativeRequest(text)).toThrow(expect.objectContaining({ code: 'TG_REQUEST_INVALID', message: expect.stringContaining(fragment) }));
  });

  it('refuses text that is not JSON as every route does (TG_BAD_REQUEST)', () => {
    expect(() => parseNativeRequest('{')).toThrow(expect.objectContaining({ code: 'TG_BAD_REQUEST', message: expect.stringContaining('not valid JSON') }));
  });
});

describe('dispatch', () => {
  it('round-trips u64 ids exactly in the response', async () => {
    for (const id of ['18446744073709551615', '9007199254740993']) {
      const response = await dispatch(parseNativeRequest(body(id)), reader, { engine });
      const text = serializeNativeResponse(response);
      expect(text).toBe(`{"id":${id},"result":{"columns":["p.name"],"rows":[["Ann"]],"version":2}}`);
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
    expect(answer(withParams)).toMatchObject({ result: { rows: [[42]] } });
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
    if (code !== null) expect(engine.view('g').version).toBe(2);
  });

  it('a write bumps the version once and reports counters', async () => {
    const response = await dispatch(parseNativeRequest(body('9', "CREATE (a:Person {name: 'B'})-[:KNOWS]->(b:Person {name: 'C'})")), writer, { engine });
    expect(answer(response)).toMatchObject({ result: { version: 3, stats: { nodesCreated: 2, relationshipsCreated: 1 } } });
    expect(engine.view('g').version).toBe(3);
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
    const broken = { read: () => Promise.reject(new Error('secret detail')), transact: () => Promise.reject(new Error('x')), hasGraph: () => true, access: () => null };
    const response = await dispatch(parseNativeRequest(body('2')), reader, { engine: broken });
    expect(response).toMatchObject({ error: { code: 'TG_INTERNAL', message: 'Internal server error.' } });
  });
});

async function run(text: string, principal: Principal = writer): Promise<Record<string, unknown>> {
  return JSON.parse((await answerNativeRequest(parseNativeRequest(text), principal, { engine })).text) as Record<string, unknown>;
}

describe('parseNativeRequest: the generated validator decides, the id is read by hand', () => {
  it.each([
    ['query not a string', '{"id":1,"graph":"g","method":{"Cypher":{"query":5}}}', 'method.Cypher.query', '/method/Cypher/query', 'a string', '5'],
    ['unknown method field', '{"id":1,"graph":"g","method":{"Cypher":{"query":"x","bogus":1}}}', 'method.Cypher.bogus', '/method/Cypher/bogus', 'no such field (allowed: query, params)', '1'],
    ['variables a list', '{"id":1,"graph":"g","method":{"GraphQl":{"query":"x","variables":[1]}}}', 'method.GraphQl.variables', '/method/GraphQl/variables', 'an object or null', 'a list of 1 item'],
    ['method a string', '{"id":1,"graph":"g","method":"Cypher"}', 'method', '/method', 'an object with exactly one of GraphQl or Cypher', '"Cypher"'],
    ['misspelt method', '{"id":1,"graph":"g","method":{"Cyper":{"query":"x"}}}', 'method', '/method', 'an object with exactly one of GraphQl or Cypher', 'keys Cyper'],
    ['empty method', '{"id":1,"graph":"g","method":{}}', 'method', '/method', 'an object with exactly one of GraphQl or Cypher', 'an empty object'],
    ['missing method', '{"id":1,"graph":"g"}', 'method', '/method', 'an object with exactly one of GraphQl or Cypher', 'nothing'],
    ['query missing', '{"id":1,"graph":"g","method":{"Cypher":{}}}', 'method.Cypher.query', '/method/Cypher/query', 'a string', 'nothing'],
    ['empty graph', '{"id":1,"graph":"","method":{"Cypher":{"query":"x"}}}', 'graph', '/graph', 'a non-empty string', '""'],
    ['body a number', '12', 'body', '', 'a NativeRequest object', '12'],
  ])('%s: names the field, its JSON pointer, what was expected and what came', (_name, text, field, pointer, expected, got) => {
    let thrown: unknown;
    try {
      parseNativeRequest(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'TG_REQUEST_INVALID',
      message: `${field}: expected ${expected}, got ${got}.`,
      details: { field, pointer, expected, got },
    });
  });

  it('accepts exactly what validateNativeRequest accepts (ids within 2^53, written plainly)', () => {
    const value = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -2, max: 3 }), fc.constant(null), fc.boolean(), fc.constant([1]), fc.constant({}));
    const inner = fc.dictionary(fc.constantFrom('query', 'params', 'variables', 'other'), fc.oneof(value, fc.dictionary(fc.string({ maxLength: 2 }), value, { maxKeys: 2 })), { maxKeys: 3 });
    const method = fc.oneof(value, fc.dictionary(fc.constantFrom('Cypher', 'GraphQl', 'Sql'), fc.oneof(inner, value), { maxKeys: 2 }));
    const request = fc.dictionary(fc.constantFrom('id', 'graph', 'agent_id', 'method', 'extra'), fc.oneof(value, method), { maxKeys: 5 });
    fc.assert(fc.property(fc.oneof(request, value), (body) => {
      const text = JSON.stringify(body);
      let parsed = true;
      try {
        parseNativeRequest(text);
      } catch (error) {
        expect((error as { code?: string }).code).toBe('TG_REQUEST_INVALID');
        parsed = false;
      }
      expect(parsed).toBe(validateNativeRequest(JSON.parse(text)));
    }), { numRuns: 3000 });
  });
});

describe('request bodies nested too deep', () => {
  it.each([
    ['in params', `{"id":1,"graph":"g","method":{"Cypher":{"query":"RETURN 1","params":{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}}}}`],
    ['beside a big number (the lossless path)', `{"id":18446744073709551615,"graph":"g","method":{"Cypher":{"query":"RETURN 1","params":{"a":${'{"b":'.repeat(5000)}1${'}'.repeat(5000)}}}}}`],
    ['as the whole body', '['.repeat(101) + ']'.repeat(101)],
  ])('are refused %s with a clear TG_REQUEST_INVALID before anything recurses', (_name, text) => {
    expect(() => parseNativeRequest(text)).toThrow(expect.objectContaining({
      code: 'TG_REQUEST_INVALID',
      message: expect.stringMatching(/^The body nests arrays and objects deeper than 100 levels \(at character \d+\); at most 100 are accepted\.$/),
    }));
  });

  it('a body nested exactly 100 levels deep parses', () => {
    expect(() => parseNativeRequest('['.repeat(100) + ']'.repeat(100))).toThrow('body: expected a NativeRequest object');
  });
});

describe('parameters lose nothing silently', () => {
  it.each([
    ['18446744073709551614', '$p'],
    ['-9007199254740993', '$p'],
    ['{"a":[1,9007199254740993]}', '$p.a[1]'],
  ])('%s is refused with TG_VALUE_INVALID naming %s, the response carrying the id', async (param, where) => {
    const answer = await run(`{"id":77,"graph":"g","method":{"Cypher":{"query":"RETURN $p","params":{"p":${param}}}}}`);
    expect(answer).toMatchObject({ id: 77, error: { code: 'TG_VALUE_INVALID', details: { where } } });
    expect((answer['error'] as { message: string }).message).toMatch(new RegExp(`^Parameter \\${where.replace(/[[\].]/g, '\\$&')} is the integer -?\\d+, outside ±9007199254740991`));
  });

  // biome-ignore lint/correctness/noPrecisionLoss: the literal is the point: a parameter beyond double precision is kept as JavaScript reads the same text.
  it.each([['9007199254740991', 9007199254740991], ['-9007199254740991', -9007199254740991], ['1.5e300', 1.5e300], ['12345678901234567890.5', 12345678901234567890.5]])('%s is kept', async (param, want) => {
    const answer = await run(`{"id":1,"graph":"g","method":{"Cypher":{"query":"RETURN $p AS p","params":{"p":${param}}}}}`);
    expect(answer).toMatchObject({ result: { rows: [[want]] } });
  });
});

describe('ill-formed Unicode never gets in', () => {
  it.each([
    ['a parameter value', '{"p":"a\\ud800"}', '$p'],
    ['a nested value', '{"p":{"k":["ok","\\udc00"]}}', '$p.k[1]'],
    ['a nested key', '{"p":{"\\ud800":1}}', '$p."\\ud800"'],
    ['a parameter name', '{"\\ud800":1}', '$"\\ud800"'],
  ])('in %s: TG_VALUE_INVALID naming where, with the id', async (_name, params, where) => {
    const answer = await run(`{"id":"5","graph":"g","method":{"Cypher":{"query":"CREATE (n:Junk {id: 'sur1', s: $p})","params":${params}}}}`);
    expect(answer).toMatchObject({ id: '5', error: { code: 'TG_VALUE_INVALID', details: { where } } });
    expect(engine.view('g').version).toBe(2);
  });

  it.each([
    ["'\\uD800'", 1, 33], ["'\\uDC00'", 1, 33], ["'x\\U0000D800'", 1, 34], ["'\\uD800\\u0041'", 1, 33],
  ])('in a Cypher string literal %s: TG_VALUE_INVALID with line and column', async (literal, line, column) => {
    const query = `CREATE (n:Junk {id: 'sur1', s: ${literal}})`;
    const answer = await run(JSON.stringify({ id: 6, graph: 'g', method: { Cypher: { query } } }));
    expect(answer).toMatchObject({ id: 6, error: { code: 'TG_VALUE_INVALID', details: { line, column } } });
    expect((answer['error'] as { message: string }).message).toContain('is a lone surrogate, not a character');
    expect(engine.view('g').version).toBe(2);
  });

  it('raw in the query text: TG_VALUE_INVALID at its position', async () => {
    const answer = await run('{"id":6,"graph":"g","method":{"Cypher":{"query":"RETURN \'a\\ud800\' AS s"}}}');
    expect(answer).toMatchObject({ id: 6, error: { code: 'TG_VALUE_INVALID', details: { line: 1, column: 10 } } });
  });

  it('a surrogate pair written as two escapes is one character', async () => {
    const answer = await run(JSON.stringify({ id: 6, graph: 'g', method: { Cypher: { query: "RETURN '\\uD83D\\uDE00' AS s, '\\U0001F600' AS t" } } }));
    expect(answer).toMatchObject({ result: { rows: [['😀', '😀']] } });
  });
});

describe('__proto__ as a property name', () => {
  it('is refused the same way by CREATE, SET n.__proto__ and SET n += {…}', async () => {
    await run('{"id":1,"graph":"g","method":{"Cypher":{"query":"CREATE (n:T {id: \'t6\'})"}}}');
    const version = engine.view('g').version;
    for (const query of ["CREATE (n:T {__proto__: 1, id: 't7'})", "MATCH (n:T {id: 't6'}) SET n.__proto__ = 1", "MATCH (n:T {id: 't6'}) SET n += {__proto__: 1}", "MATCH (n:T {id: 't6'}) SET n = {__proto__: 1}"]) {
      const answer = await run(JSON.stringify({ id: 2, graph: 'g', method: { Cypher: { query } } }));
      expect(answer, query).toMatchObject({ error: { code: 'TG_NAME_INVALID', message: expect.stringContaining('got "__proto__"') } });
    }
    expect(engine.view('g').version).toBe(version);
  });

  it('through a parameter map too', async () => {
    const answer = await run('{"id":1,"graph":"g","method":{"Cypher":{"query":"CREATE (n:T $props)","params":{"props":{"__proto__":1,"id":"t8"}}}}}');
    expect(answer).toMatchObject({ error: { code: 'TG_NAME_INVALID' } });
  });

  it('in JSON props of an engine createNode mutation (the GraphQL createNode path)', async () => {
    const props = JSON.parse('{"__proto__": 1, "name": "x"}') as Record<string, unknown>;
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'T', props } as never] })).rejects.toMatchObject({ code: 'TG_NAME_INVALID' });
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'a', set: JSON.parse('{"__proto__": 1}') } as never] })).rejects.toMatchObject({ code: 'TG_NAME_INVALID' });
  });
});

describe('a NativeResponse always carries the id', () => {
  it('even when the result cannot be serialised', async () => {
    const unwritable = { get data(): unknown { throw new Error('cannot be read') } };
    const request: NativeRequest = { id: 18446744073709551615n, idForm: 'integer', graph: 'g', agentId: null, method: { GraphQl: { query: '{ x }', variables: null } } };
    const answer = await answerNativeRequest(request, reader, { engine, graphql: async () => unwritable });
    expect(answer.outcome).toBe('TG_INTERNAL');
    expect(answer.text).toMatch(/^\{"error":\{"code":"TG_INTERNAL","message":"[^"]+"\},"id":18446744073709551615\}$/);
    expect(validateNativeResponse(JSON.parse(answer.text))).toBe(true);
    const asString = await answerNativeRequest({ ...request, id: 9n, idForm: 'string' }, reader, { engine, graphql: async () => ({ n: 10n }) });
    expect(JSON.parse(asString.text)).toMatchObject({ id: '9', error: { code: 'TG_INTERNAL' } });
  });
});
