import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../../src/errors/index.ts';
import { parseCypher, prepareCypher, type Expr, type Query } from '../../../src/graph/cypher/index.ts';
import type { MatchClause } from '../../../src/graph/cypher/language/ast.ts';
import { failure } from '../../support/toolgraph-failure.ts';

/** The AST without source offsets, for shape comparisons. */
function shape(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'offset' ? undefined : v)));
}

function firstReturn(query: Query): Expr {
  return query.returns!.items[0]!.expr;
}

describe('parseCypher: valid statements', () => {
  const cases: [string, string, (q: Query) => unknown, unknown][] = [
    ['node with label and property map', "MATCH (n:Person {name: 'Ann'}) RETURN n",
      (q) => shape((q.reading[0] as MatchClause).patterns[0]!.start),
      { kind: 'node', variable: 'n', label: 'Person', properties: { kind: 'map', entries: [{ key: 'name', value: { kind: 'literal', value: 'Ann' } }] } }],
    ['outgoing typed relationship', 'MATCH (a)-[:KNOWS]->(b) RETURN b',
      (q) => shape((q.reading[0] as MatchClause).patterns[0]!.steps[0]!.rel), { kind: 'rel', variable: null, types: ['KNOWS'], direction: 'out' }],
    ['incoming relationship with variable', 'MATCH (a)<-[r:KNOWS]-(b) RETURN r',
      (q) => shape((q.reading[0] as MatchClause).patterns[0]!.steps[0]!.rel), { kind: 'rel', variable: 'r', types: ['KNOWS'], direction: 'in' }],
    ['undirected, alternative types', 'MATCH (a)-[r:A|B]-(b) RETURN r',
      (q) => shape((q.reading[0] as MatchClause).patterns[0]!.steps[0]!.rel), { kind: 'rel', variable: 'r', types: ['A', 'B'], direction: 'both' }],
    ['bare arrows', 'MATCH (a)-->(b)<--(c)--(d) RETURN a',
      (q) => (q.reading[0] as MatchClause).patterns[0]!.steps.map((s) => s.rel.direction), ['out', 'in', 'both']],
    ['comma-separated patterns', 'MATCH (a:A), (b:B) RETURN a, b',
      (q) => (q.reading[0] as MatchClause).patterns.map((p) => p.start.label), ['A', 'B']],
    ['keywords are case-insensitive', 'match (n) where n.x = 1 return n order by n.x desc skip 1 limit 2',
      (q) => [q.returns!.orderBy[0]!.descending, shape(q.returns!.skip), shape(q.returns!.limit)],
      [true, { kind: 'literal', value: 1 }, { kind: 'literal', value: 2 }]],
    ['backtick identifiers', 'MATCH (`my node`:`Odd Label`) RETURN `my node`.`a b` AS `x``y`',
      (q) => [(q.reading[0] as MatchClause).patterns[0]!.start.variable, (q.reading[0] as MatchClause).patterns[0]!.start.label, q.returns!.items[0]!.name],
      ['my node', 'Odd Label', 'x`y']],
    ['precedence: OR < XOR < AND < NOT < comparison', 'RETURN a OR b XOR c AND NOT d = 1',
      (q) => firstReturn(q).kind === 'or' && (firstReturn(q) as unknown as { operands: Expr[] }).operands.map((e) => e.kind), ['variable', 'xor']],
    ['flat AND chain', 'RETURN 1 = 1 AND 2 = 2 AND 3 = 3',
      (q) => (firstReturn(q) as unknown as { operands: Expr[] }).operands.length, 3],
    ['predicates', "RETURN x IS NOT NULL, x IN [1, 2], x STARTS WITH 'a', x ENDS WITH 'b', x CONTAINS 'c', x IS NULL",
      (q) => q.returns!.items.map((i) => (i.expr.kind === 'string' ? i.expr.op : i.expr.kind)),
      ['isNull', 'in', 'STARTS WITH', 'ENDS WITH', 'CONTAINS', 'isNull']],
    ['literals', "RETURN 'a\\n\\u00e9\\'', \"d\", 42, 0x1F, 1.5e3, .5, true, FALSE, null, [1, [2]], {k: 'v', `odd key`: 1}",
      (q) => q.returns!.items.map((i) => (i.expr.kind === 'literal' ? i.expr.value : i.expr.kind)),
      ["a\né'", 'd', 42, 31, 1500, 0.5, true, false, null, 'list', 'map']],
    ['parameters', 'MATCH (n {name: $name}) RETURN n LIMIT $limit',
      (q) => [shape((q.reading[0] as MatchClause).patterns[0]!.start.properties), shape(q.returns!.limit)],
      [{ kind: 'map', entries: [{ key: 'name', value: { kind: 'parameter', name: 'name' } }] }, { kind: 'parameter', name: 'limit' }]],
    ['map projection', 'MATCH (n) RETURN n {.name, .*, age: n.age + 1, n}',
      (q) => (firstReturn(q) as unknown as { items: { kind: string }[] }).items.map((i) => i.kind),
      ['propertySelector', 'allProperties', 'literalEntry', 'variableSelector']],
    ['pattern comprehension', 'MATCH (n) RETURN [(n)-[:KNOWS]->(m:Person) WHERE m.age > 3 | m {.name}] AS friends',
      (q) => {
        const e = firstReturn(q);
        return e.kind === 'patternComprehension' ? [e.pattern.steps.length, e.where?.kind, e.projection.kind] : e.kind;
      }, [1, 'comparison', 'mapProjection']],
    ['pattern predicate in WHERE', 'MATCH (a), (b) WHERE (a)-[:KNOWS]->(b) RETURN a',
      (q) => (q.reading[0] as MatchClause).where!.kind, 'patternPredicate'],
    ['parenthesised expression is not a pattern', 'RETURN (1 + 2) * 3',
      (q) => shape(firstReturn(q)),
      { kind: 'arithmetic', first: { kind: 'arithmetic', first: { kind: 'literal', value: 1 }, rest: [{ op: '+', expr: { kind: 'literal', value: 2 } }] }, rest: [{ op: '*', expr: { kind: 'literal', value: 3 } }] }],
    ['aggregates', 'MATCH (n) RETURN DISTINCT count(*), count(DISTINCT n.x), collect(n.name)',
      (q) => [q.returns!.distinct, ...q.returns!.items.map((i) => (i.expr.kind === 'call' ? [i.expr.name, i.expr.star, i.expr.distinct] : null))],
      [true, ['count', true, false], ['count', false, true], ['collect', false, false]]],
    ['column names are the text as written', 'MATCH (n) RETURN n.name,  id(n), n.age AS age',
      (q) => q.returns!.items.map((i) => i.name), ['n.name', 'id(n)', 'age']],
    ['CREATE', "CREATE (a:P {x: 1})-[:K]->(b:P), (b)<-[:L]-(a)",
      (q) => q.updating[0]!.kind === 'create' && q.updating[0]!.patterns.map((p) => p.steps[0]!.rel.direction), ['out', 'in']],
    ['SET and REMOVE', 'MATCH (n) SET n.x = 1, n += {y: 2}, n = {z: 3} REMOVE n.w RETURN n',
      (q) => q.updating.map((c) => (c.kind === 'set' ? c.items.map((i) => (i.kind === 'setProperties' ? `props:${i.merge}` : i.key)) : c.kind)),
      [['x', 'props:true', 'props:false'], 'remove']],
    ['DELETE and DETACH DELETE', 'MATCH (n)-[r]->(m) DELETE r DETACH DELETE n, m',
      (q) => q.updating.map((c) => (c.kind === 'delete' ? [c.detach, c.targets.length] : null)), [[false, 1], [true, 2]]],
    ['comments and a trailing semicolon', 'MATCH (n) // all\n/* nodes */ RETURN n;',
      (q) => q.returns!.items.length, 1],
    ['label predicate', 'MATCH (n) WHERE n:Person RETURN n', (q) => (q.reading[0] as MatchClause).where!.kind, 'hasLabel'],
    ['OPTIONAL MATCH', 'MATCH (a) OPTIONAL MATCH (a)-->(b) RETURN a, b', (q) => q.reading.map((c) => (c as MatchClause).optional), [false, true]],
  ];
  it.each(cases)('%s', (_name, text, pick, want) => {
    expect(pick(parseCypher(text))).toEqual(want);
  });
});

function syntaxErrorOf(text: string): ToolgraphError {
  return failure(() => prepareCypher(text));
}

describe('parseCypher: errors', () => {
  const cases: [string, string, string, number, number, string][] = [
    ['unclosed node pattern', 'MATCH (n RETURN n', 'TG_CYPHER_SYNTAX', 1, 10, "expected ')' to close the node pattern but found 'RETURN'"],
    ['missing expression at end', 'RETURN 1 +', 'TG_CYPHER_SYNTAX', 1, 11, 'expected an expression but found end of input'],
    ['second line', 'MATCH (n)\nRETURN n.', 'TG_CYPHER_SYNTAX', 2, 10, 'expected a property name after .'],
    ['column counts code points', "RETURN '😀😀' +", 'TG_CYPHER_SYNTAX', 1, 14, 'expected an expression'],
    ['bad escape', "RETURN 'a\\q'", 'TG_CYPHER_SYNTAX', 1, 10, "found '\\q'"],
    ['unterminated string', "MATCH (n)\n  RETURN 'abc", 'TG_CYPHER_SYNTAX', 2, 10, 'never closed'],
    ['stray character', 'RETURN 1 # 2', 'TG_CYPHER_SYNTAX', 1, 10, "found '#'"],
    ['!= is not Cypher', 'MATCH (n) WHERE n.x != 1 RETURN n', 'TG_CYPHER_SYNTAX', 1, 21, "expected '<>' for inequality"],
    ['no clause', '', 'TG_CYPHER_SYNTAX', 1, 1, 'expected MATCH'],
    ['MATCH alone', 'MATCH (n)', 'TG_CYPHER_SYNTAX', 1, 10, 'must end with RETURN'],
    ['undefined variable', 'MATCH (n) RETURN m', 'TG_CYPHER_SYNTAX', 1, 18, 'variable `m` is not defined'],
    ['aggregate in WHERE', 'MATCH (n) WHERE count(*) > 1 RETURN n', 'TG_CYPHER_SYNTAX', 1, 17, 'only allowed in RETURN'],
    ['duplicate column', 'RETURN 1 AS a, 2 AS a', 'TG_CYPHER_SYNTAX', 1, 16, "'a' is used twice"],
    ['CREATE without label', 'CREATE (n {x: 1})', 'TG_CYPHER_UNSUPPORTED', 1, 8, 'graph model excludes a node without a label'],
    ['CREATE undirected', 'CREATE (a:A)-[:K]-(b:B)', 'TG_CYPHER_SYNTAX', 1, 13, 'needs a direction'],
    ['wrong arity', 'RETURN size(1, 2)', 'TG_CYPHER_SYNTAX', 1, 8, 'takes 1 argument, got 2'],
    ['LOAD CSV', "LOAD CSV FROM 'f' AS l RETURN l", 'TG_CYPHER_UNSUPPORTED', 1, 1, 'the LOAD clause'],
    ['YIELD', 'MATCH (n) YIELD n RETURN n', 'TG_CYPHER_UNSUPPORTED', 1, 11, 'the YIELD clause'],
    ['path function', 'MATCH p = longestPath((a)-[*]-(b)) RETURN p', 'TG_CYPHER_UNSUPPORTED', 1, 11, 'the path function longestPath()'],
    ['unknown function', 'RETURN foo(1)', 'TG_CYPHER_UNSUPPORTED', 1, 8, 'the function foo()'],
    ['CASE without WHEN', 'RETURN CASE 1 END', 'TG_CYPHER_SYNTAX', 1, 15, 'expected WHEN in the CASE expression'],
    ['CASE without END', 'RETURN CASE WHEN true THEN 1', 'TG_CYPHER_SYNTAX', 1, 29, 'expected WHEN, ELSE or END'],
    ['unclosed slice', 'RETURN [1][0..', 'TG_CYPHER_SYNTAX', 1, 15, 'expected an expression'],
    ['two labels', 'MATCH (n:A:B) RETURN n', 'TG_CYPHER_UNSUPPORTED', 1, 11, 'more than one label'],
    ['huge integer', 'RETURN 9007199254740993', 'TG_CYPHER_UNSUPPORTED', 1, 8, '9007199254740993'],
  ];
  it.each(cases)('%s', (_name, text, code, line, column, fragment) => {
    const error = syntaxErrorOf(text);
    expect(error.code).toBe(code);
    expect(error.message).toContain(`line ${line}, column ${column}`);
    expect(error.message).toContain(fragment);
    expect(error.details).toMatchObject({ line, column });
  });
});

describe('parseCypher: limits', () => {
  it('refuses text over 32 KiB', () => {
    const text = `RETURN '${'x'.repeat(32 * 1024)}'`;
    const error = syntaxErrorOf(text);
    expect(error.code).toBe('TG_QUERY_TOO_COMPLEX');
    expect(error.message).toContain('32 KiB');
  });
  it('accepts 64 levels of nesting and refuses 65', () => {
    expect(() => parseCypher(`RETURN ${'['.repeat(63)}1${']'.repeat(63)}`)).not.toThrow();
    const error = syntaxErrorOf(`RETURN ${'['.repeat(65)}1${']'.repeat(65)}`);
    expect(error.code).toBe('TG_QUERY_TOO_COMPLEX');
    expect(error.message).toContain('deeper than 64');
  });
  it.each([
    ['NOT chains', `RETURN ${'NOT '.repeat(5000)}true`],
    ['unary minus chains', `RETURN ${'- '.repeat(5000)}1`],
    ['property chains', `MATCH (n) RETURN n${'.a'.repeat(5000)}`],
    ['IS NULL chains', `RETURN 1${' IS NULL'.repeat(3000)}`],
    ['unclosed parentheses', `RETURN ${'('.repeat(10000)}`],
  ])('refuses deep %s without overflowing the stack', (_name, text) => {
    expect(syntaxErrorOf(text).code).toBe('TG_QUERY_TOO_COMPLEX');
  });
  it('parses long flat chains without recursion', () => {
    const text = `RETURN ${Array.from({ length: 3000 }, () => '1').join(' + ')} AS s, ${Array.from({ length: 2000 }, () => 'true').join(' AND ')} AS t`;
    expect(() => parseCypher(text)).not.toThrow();
  });
});

const VOCABULARY = [
  'MATCH', 'OPTIONAL', 'WHERE', 'RETURN', 'CREATE', 'SET', 'REMOVE', 'DELETE', 'DETACH', 'ORDER', 'BY', 'SKIP', 'LIMIT',
  'AND', 'OR', 'XOR', 'NOT', 'IN', 'IS', 'NULL', 'STARTS', 'ENDS', 'WITH', 'CONTAINS', 'AS', 'DISTINCT', 'ASC', 'DESC',
  'true', 'false', 'count', 'collect', 'id', 'labels', 'type', 'size', 'n', 'm', 'r', 'Person', 'KNOWS', 'name',
  '(', ')', '[', ']', '{', '}', ',', '.', ':', '|', ';', '=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '^',
  '->', '<-', '--', '+=', '..', '$p', '`q`', "'s'", '"t"', '1', '2.5', '0x1f', '//c\n', '/*c*/', '\n', "'\\u00e9'", "'\\x'",
];

function onlyOwnErrors(text: string): void {
  try {
    prepareCypher(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolgraphError);
    expect(['TG_CYPHER_SYNTAX', 'TG_CYPHER_UNSUPPORTED', 'TG_QUERY_TOO_COMPLEX']).toContain((error as ToolgraphError).code);
  }
}

describe('parseCypher: property tests', () => {
  it('throws only its own errors on random strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200, unit: 'binary' }), onlyOwnErrors), { numRuns: 2000 });
  });
  it('throws only its own errors on token soups of Cypher vocabulary', () => {
    const soup = fc.array(fc.constantFrom(...VOCABULARY), { maxLength: 60 }).map((tokens) => tokens.join(' '));
    fc.assert(fc.property(soup, onlyOwnErrors), { numRuns: 3000 });
  });
  it('throws only its own errors on mutated valid queries', () => {
    const base = "MATCH (a:Person {name: $n})-[r:KNOWS]->(b) WHERE b.age >= 3 AND NOT b.x IS NULL RETURN a {.name, f: [(a)-->(c) | c.name]} AS x, count(*) ORDER BY x SKIP 1 LIMIT 2";
    const mutated = fc.tuple(fc.nat(base.length), fc.nat(base.length), fc.constantFrom(...VOCABULARY)).map(([i, j, t]) => base.slice(0, Math.min(i, j)) + t + base.slice(Math.max(i, j)));
    fc.assert(fc.property(mutated, onlyOwnErrors), { numRuns: 2000 });
  });
  it('never overflows the stack on deeply nested soups', () => {
    const deep = fc.tuple(fc.constantFrom('(', '[', '{a:', 'NOT ', '-', 'n.', '[(n)-->(m) | '), fc.integer({ min: 50, max: 3000 }))
      .map(([open, count]) => `RETURN ${open.repeat(count)}1`);
    fc.assert(fc.property(deep, onlyOwnErrors), { numRuns: 200 });
  });
});
