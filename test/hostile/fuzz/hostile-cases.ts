import fc from 'fast-check';
import { HOSTILE_GRAPH, cypherBody } from './hostile-graph.ts';

/**
 * Adversarial requests for the hostile graph (fuzz-target.ts): GraphQL reads that fan out over hubs
 * of 10,000 edges, dodge pricing with variables and missing `first`, repeat a 1 MB string through
 * aliases, or send thousands of `_entities` representations; Cypher reads over cross products that
 * collect, concatenate and project large values; and writes (Cypher and GraphQL mutations) over cross
 * products, with large values, thousands of properties or new labels. Each case is a request body; its
 * description (what reports print) leaves the large values out.
 */
export interface HostileCase {
  readonly surface: 'graphql' | 'cypher';
  readonly write: boolean;
  readonly path: string;
  readonly text: string;
  body(): string;
  [fc.toStringMethod](): string;
}

/** Values that are cheap to describe and expensive to hold: sizes, not contents. */
const stringSize = fc.constantFrom(0, 1_000, 100_000, 1_000_000);
const count = fc.constantFrom(0, 1, 100, 10_000, 1_000_000, 2_147_483_647);

function describe(surface: string, text: string, sizes: Record<string, unknown>): string {
  const shown = text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
  return `${surface} ${JSON.stringify(shown)} ${JSON.stringify(sizes)}`;
}

function graphqlCase(text: string, variables: Record<string, unknown>, sizes: Record<string, unknown>, write: boolean): HostileCase {
  return {
    surface: 'graphql', write, path: `/graphql/${HOSTILE_GRAPH}`, text,
    body: () => JSON.stringify({ query: text, variables }),
    [fc.toStringMethod]: () => describe('graphql', text, sizes),
  };
}

function cypherCase(text: string, params: Record<string, unknown>, sizes: Record<string, unknown>, write: boolean): HostileCase {
  return {
    surface: 'cypher', write, path: '/dispatch', text,
    body: () => cypherBody(text, params),
    [fc.toStringMethod]: () => describe('cypher', text, sizes),
  };
}

// ---- GraphQL reads ------------------------------------------------------------------------------

const pageArgument = fc.oneof(
  fc.constant(''),
  fc.constantFrom(0, 1, 100, 10_000, 2_147_483_647).map((n) => `(first: ${n})`),
  fc.constant('(first: $n)'),
  fc.constantFrom(1, 100, 100_000).map((n) => `(limit: ${n})`),
);

type Kind = 'Hub' | 'Leaf';

/** A selection set on a Hub or a Leaf, `depth` edge levels deep at most, fields repeated under aliases. */
function selection(kind: Kind, depth: number): fc.Arbitrary<string> {
  const scalars = kind === 'Hub' ? ['id', 'name', 'blob'] : ['id', 'n', 's'];
  const [edge, target]: [string, Kind] = kind === 'Hub' ? ['LINK', 'Leaf'] : ['BACK', 'Hub'];
  const scalarPart = fc.tuple(fc.subarray(scalars, { minLength: 1 }), fc.integer({ min: 1, max: 12 })).map(([fields, copies]) =>
    fields.flatMap((f) => Array.from({ length: copies }, (_, i) => (i === 0 ? f : `${f}${i}: ${f}`))).join(' '));
  if (depth === 0) return scalarPart;
  const edgePart = fc.option(fc.tuple(pageArgument, selection(target, depth - 1), fc.integer({ min: 1, max: 4 }), fc.boolean()).map(([arg, inner, copies, inline]) =>
    Array.from({ length: copies }, (_, i) => {
      const field = `${i === 0 ? '' : `${edge.toLowerCase()}${i}: `}${edge}${arg} { ${inner} }`;
      return inline ? `... on ${kind} { ${field} }` : field;
    }).join(' ')), { nil: '' });
  return fc.tuple(scalarPart, edgePart).map(([s, e]) => `${s} ${e}`.trim());
}

const graphqlListRead = fc.tuple(fc.constantFrom<Kind>('Hub', 'Leaf'), pageArgument, fc.integer({ min: 0, max: 4 }), count)
  .chain(([kind, arg, depth, n]) => selection(kind, depth).map((sel) => {
    const text = `${/\$n/.test(arg + sel) ? 'query ($n: Int) ' : ''}{ ${kind}${arg} { ${sel} } }`;
    return graphqlCase(text, /\$n/.test(text) ? { n } : {}, { n }, false);
  }));

const graphqlEntities = fc.tuple(fc.constantFrom(1, 1_000, 28_000, 60_000), fc.integer({ min: 0, max: 3 }), count)
  .chain(([representations, depth, n]) => selection('Hub', depth).map((sel) => {
    const text = `query ($r: [_Any!]!${/\$n/.test(sel) ? ', $n: Int' : ''}) { _entities(representations: $r) { ... on Hub { ${sel} } } }`;
    const r = Array.from({ length: representations }, (_, i) => ({ __typename: 'Hub', id: `hub-${i % 3}` }));
    return graphqlCase(text, { r, n }, { representations, n }, false);
  }));

// ---- Cypher reads -------------------------------------------------------------------------------

const cypherPatterns = ['(a)', '(a), (b)', '(a), (b), (c)', '(a:Hub)-[:LINK]->(b)', '(a:Hub)-[:LINK]->(b)-[:BACK]->(c)-[:LINK]->(d)', '(a:Leaf), (b:Leaf)', '(a:Wide), (b)', '(a:Hub), (b:Leaf)'];
const cypherReturns = [
  'count(*)', 'collect($p)', 'collect(a)', 'collect(a {.*})', 'a', 'a {.*}', '$p + $p', 'toUpper($p + $p)',
  'collect([$p, $p, $p])', '[(a)-[:LINK]->(x) | x {.*}]', '[(a)-[:LINK]->(x) | $p]', 'collect(DISTINCT a.s + $p)',
  'properties(a)', 'keys(a)', 'size(collect($p + $p))', 'collect(a.blob)', 'a.blob + $p', 'collect(properties(a))',
];
const cypherSuffixes = ['', ' ORDER BY x', ' LIMIT $n', ' ORDER BY x DESC LIMIT $n', ' SKIP $n'];

const cypherRead = fc.tuple(fc.constantFrom(...cypherPatterns), fc.constantFrom(...cypherReturns), fc.constantFrom(...cypherSuffixes), fc.boolean(), stringSize, count)
  .map(([pattern, ret, suffix, distinct, p, n]) => cypherCase(`MATCH ${pattern} RETURN ${distinct ? 'DISTINCT ' : ''}${ret} AS x${suffix}`, { p: 'p'.repeat(p), n: Math.min(n, 1_000_000_000) }, { p, n }, false));

// ---- Cypher reads over large parameters (issue 28, F1–F3) -----------------------------------------

/**
 * Parameters that are cheap to send and expensive to work on: a list of up to 450,000 single digits
 * (912 KB of JSON, under the 1 MiB body limit), a 600 kB string of one letter, needles that defeat a
 * naive search, a string of 600,000 digits. One large parameter per case, so the body stays under the limit.
 */
const largeParameter = fc.oneof(
  fc.constantFrom(0, 1_000, 100_000, 450_000).map((n) => ({ name: 'l', value: Array.from({ length: n }, (_, i) => i % 10) as unknown, size: n })),
  fc.tuple(fc.constantFrom(1_000, 100_000, 600_000), fc.constantFrom('ab', `${'a'.repeat(300)}b`, `${'a'.repeat(5000)}b${'a'.repeat(5000)}`))
    .map(([n, needle]) => ({ name: 'a', value: 'a'.repeat(n) as unknown, size: n, needle })),
  fc.constantFrom(1_000, 600_000).map((n) => ({ name: 's', value: '7'.repeat(n) as unknown, size: n })),
);

/** What one condition or item does with the large parameter (each names only the parameter its case sends). */
const valueOperations: Record<string, readonly string[]> = {
  l: ['size($l[1..]) > 0', '$l[1..] = $l[2..]', '-1 IN $l', 'size($l[0..] + $l[1..]) > 0', 'size([$l[0..], $l[1..]]) > 1', '$l[1..] < $l[2..]'],
  a: ['NOT ($a CONTAINS $b)', '$a STARTS WITH $b', '$a ENDS WITH $b', 'size($a + $b) > 0', 'toLower($a) = $a', '$a < $b'],
  s: ['toInteger($s) > 0', 'toFloat($s) > 0', 'size($s) > 0', "$s CONTAINS '78'", 'toString(toInteger($s)) = $s'],
};
const valueReturns: Record<string, readonly string[]> = {
  l: ['size([$l[0..], $l[0..], $l[0..], $l[0..], $l[0..], $l[0..], $l[0..], $l[0..]])', '$l[1..]', 'collect($l[1..])', 'size($l[1..] + $l)'],
  a: ['$a CONTAINS $b', 'collect($a + $b)', 'size(toUpper($a))'],
  s: ['toInteger($s)', 'collect(toFloat($s))'],
};

const cypherValueRead = fc.tuple(
  fc.constantFrom('(n)', '(a), (b)', '(a:Leaf)', '(a:Hub)', '(a:Wide)'),
  largeParameter,
  fc.constantFrom(0, 1, 10, 100, 1000),
  fc.nat(),
  fc.constantFrom('', ' ORDER BY $l[1..]', ' ORDER BY x', ' ORDER BY x DESC LIMIT 10', ' SKIP 5'),
  fc.boolean(),
).map(([pattern, param, conditions, pick, suffix, distinct]) => {
  const ops = valueOperations[param.name]!;
  // Conditions joined by AND, with an OR every third, so short-circuiting does not end every row at the first.
  const where = conditions === 0 ? '' : ` WHERE ${Array.from({ length: conditions }, (_, i) => `${i === 0 ? '' : i % 3 === 0 ? ' OR ' : ' AND '}${ops[(pick + i) % ops.length]}`).join('')}`;
  const returns = valueReturns[param.name]!;
  const order = suffix.includes('$l') && param.name !== 'l' ? '' : suffix;
  const text = `MATCH ${pattern}${where} RETURN ${distinct ? 'DISTINCT ' : ''}${returns[pick % returns.length]} AS x${order}`;
  const params: Record<string, unknown> = { [param.name]: param.value, ...('needle' in param ? { b: param.needle } : {}) };
  return cypherCase(text, params, { [param.name]: param.size, conditions }, false);
});

// ---- Cypher clauses and constructs of issue 24 ------------------------------------------------------

/**
 * The language issue 24 added, each shape aimed at where it could run away: UNWIND over huge ranges and
 * parameter cross products, WITH that groups or sorts a cross product, variable-length expansions and
 * shortest paths around 10,000-edge hubs, comprehensions, quantifiers and reduce over large lists,
 * regular expressions that backtrack elsewhere, UNION of cross products, EXISTS and COUNT subqueries,
 * procedure calls (CALL db.labels() YIELD …) joined to cross products and huge UNWINDs, and CALL { … }
 * subqueries per row of a cross product (nested, with UNION, sorting a cross product inside).
 */
const clauseReads = [
  'UNWIND range(0, $n) AS i RETURN count(i) AS x',
  'UNWIND range(0, $n) AS i UNWIND range(0, $n) AS j RETURN count(*) AS x',
  'UNWIND $l AS i UNWIND $l AS j RETURN sum(i * j) AS x',
  'MATCH (a), (b) WITH a, count(b) AS c ORDER BY c DESC RETURN collect(c) AS x',
  'MATCH (a), (b) WITH DISTINCT a, b RETURN count(*) AS x',
  'MATCH (a:Hub) WITH a MATCH (a)-[:LINK]->(b) WITH b, collect(a) AS hs RETURN size(hs) AS x ORDER BY x DESC LIMIT $n',
  'MATCH (a)-[*]->(b) RETURN count(*) AS x',
  'MATCH (a:Hub)-[:LINK*1..3]-(b) RETURN DISTINCT b.n AS x',
  'MATCH p = (a:Hub)-[*..5]-(b) RETURN length(p) AS x',
  'MATCH p = shortestPath((a:Leaf)-[*]-(b:Leaf)) RETURN length(p) AS x',
  'MATCH p = allShortestPaths((a:Leaf)-[*]-(b:Leaf)) RETURN count(*) AS x',
  'MATCH (a:Hub) MATCH p = shortestPath((a)-[:LINK|BACK*]-(b)) RETURN collect(nodes(p)) AS x',
  'MATCH p = (a:Hub)-[*1..4]-(b) RETURN DISTINCT p AS x ORDER BY x LIMIT $n',
  'MATCH p = (a)-[*]->(b) RETURN collect(p) AS x',
  'MATCH p = (a:Hub)-[:LINK]->(b), q = (b)-[:BACK]->(c) RETURN relationships(p) + relationships(q) AS x',
  'MATCH (a:Hub) RETURN [p = (a)-[*1..3]-() | nodes(p)] AS x',
  'MATCH (a:Hub) OPTIONAL MATCH p = (a)-[:LINK*..2]->(b) WITH p, count(*) AS c RETURN length(p) AS x, c',
  'MATCH (a:Hub) RETURN size([(a)-[:LINK*1..2]-(b) | b]) AS x',
  "RETURN reduce(s = '', i IN $l | s + toString(i)) AS x",
  'RETURN reduce(s = [], i IN $l | s + [i, i]) AS x',
  'RETURN [i IN $l WHERE i > 5 | [j IN $l | i * j]] AS x',
  'RETURN all(i IN $l WHERE any(j IN $l WHERE i = j)) AS x',
  "RETURN $a =~ '(a+)+b' AS x",
  "RETURN $a =~ '(a|aa)*(a|aa)*c' AS x",
  'MATCH (a:Leaf) WHERE a.s =~ $r RETURN count(*) AS x',
  'MATCH (a), (b) RETURN a.n AS x UNION MATCH (a), (b) RETURN b.n AS x',
  'MATCH (a) WHERE EXISTS { (a)-[:LINK]->()-[:BACK]->() } RETURN count(*) AS x',
  'MATCH (a), (b) RETURN COUNT { (a)--() } AS x',
  "RETURN size(split($a, 'a')) AS x",
  "RETURN size(replace($a, 'a', $a)) AS x",
  'RETURN substring($a, 1, $n) AS x',
  'CALL db.labels() YIELD label MATCH (a) WHERE labels(a)[0] = label RETURN label, count(a) AS x',
  'MATCH (a), (b) CALL db.propertyKeys() YIELD propertyKey RETURN count(*) AS x',
  'UNWIND range(0, $n) AS i CALL db.labels() YIELD label AS l WHERE l STARTS WITH $a RETURN count(*) AS x',
  'CALL db.relationshipTypes() YIELD relationshipType AS t WITH collect(t) AS ts UNWIND $l AS i CALL db.labels() YIELD label RETURN size(ts) + count(label) AS x',
  'CALL db.labels() YIELD label WHERE label =~ $r RETURN label AS x',
  'MATCH (a) CALL { MATCH (b) RETURN b } RETURN count(*) AS x',
  'MATCH (a:Leaf) CALL { WITH a MATCH (a)-[*1..3]-(b) RETURN count(b) AS c } RETURN sum(c) AS x',
  'UNWIND range(0, $n) AS i CALL { MATCH (a), (b) RETURN a.n AS m ORDER BY m DESC LIMIT $n } RETURN count(*) AS x',
  'MATCH (a:Hub) CALL { WITH a MATCH (a)-[:LINK]->(b) RETURN b.n AS m UNION MATCH (c), (d) RETURN c.n AS m } RETURN count(*) AS x',
  'UNWIND $l AS i CALL { WITH i CALL { UNWIND range(0, $n) AS j RETURN j } RETURN collect(j) AS js } RETURN size(js) AS x',
];
const clauseWrites = [
  'UNWIND range(1, $k) AS i CREATE (:Fz {i: i})',
  'UNWIND range(1, $k) AS i MERGE (f:Fz {i: i % 100}) ON MATCH SET f.c = coalesce(f.c, 0) + 1',
  'MATCH (a:Leaf) MERGE (a)-[:FZ]->(:Fz {s: $p})',
  'MATCH (a:Leaf), (b:Leaf) MERGE (:Fz {a: a.n, b: b.n})',
  'MATCH (a:Hub) FOREACH (i IN range(1, $k) | SET a.tmp = i)',
  'MATCH (a), (b) FOREACH (i IN [1, 2] | CREATE (:Fz {i: i}))',
  'MATCH (x:Fz) CALL { WITH x DETACH DELETE x } IN TRANSACTIONS OF 1000 ROWS',
  'UNWIND range(1, $k) AS i CALL { WITH i CREATE (:Fz {i: i, s: $p}) } IN TRANSACTIONS OF 500 ROWS',
  'UNWIND range(1, $k) AS i CALL { WITH i MATCH (a), (b) SET a.tmp = i } IN TRANSACTIONS OF 1 ROWS',
  'UNWIND range(1, $k) AS i CALL { WITH i CREATE (:Fz {i: i, s: $p}) }',
  'UNWIND range(1, $k) AS i CALL { WITH i UNWIND range(1, $k) AS j MERGE (f:Fz {i: j % 100}) RETURN count(f) AS c } RETURN sum(c) AS x',
];

const clauseParameters = fc.record({
  n: fc.constantFrom(0, 10, 10_000, 1_000_000_000),
  l: fc.constantFrom(0, 100, 10_000, 100_000),
  a: stringSize,
  r: fc.constantFrom('(l+)+x', 'leaf [0-9]*', '(?i)(L|le|lea)*f.*9$', '.*'.repeat(50)),
});

const cypherClauseRead = fc.tuple(fc.constantFrom(...clauseReads), clauseParameters)
  .map(([text, p]) => cypherCase(text, { n: p.n, l: Array.from({ length: p.l }, (_, i) => i % 10), a: 'a'.repeat(p.a), r: p.r }, { n: p.n, l: p.l, a: p.a }, false));

// Writes stay small in count (k): a long run must not grow the hostile graph without bound.
const cypherClauseWrite = fc.tuple(fc.constantFrom(...clauseWrites), fc.constantFrom(1, 100, 10_000), fc.constantFrom(0, 1_000, 100_000))
  .map(([text, k, p]) => cypherCase(text, { k, p: 'm'.repeat(p) }, { k, p }, true));

// ---- writes -------------------------------------------------------------------------------------

let unique = 0;
/** Names the fuzzer has not used yet (new labels and properties grow the schema). */
const fresh = fc.constant(null).map(() => `f${(unique++).toString(36)}`);

const cypherWrite = fc.oneof(
  fc.tuple(fc.constantFrom('(a), (b)', '(a), (b), (c)', '(a:Leaf)', '(a:Hub)', '(a:Hub), (b:Leaf)'), stringSize)
    .map(([pattern, p]) => cypherCase(`MATCH ${pattern} SET a.tmp = $p`, { p: 'q'.repeat(p) }, { p }, true)),
  fc.tuple(fc.constantFrom('(a), (b)', '(a), (b), (c)', '(a:Leaf)'), fc.constantFrom(5, 60, 500))
    .map(([pattern, k]) => cypherCase(`MATCH ${pattern} SET a += {${Array.from({ length: k }, (_, i) => `k${i}: ${i}`).join(', ')}}`, {}, { k }, true)),
  fc.tuple(fc.constantFrom('(a:Leaf), (b:Hub)', '(a:Leaf)', '(a:Hub)'), stringSize)
    .map(([pattern, p]) => cypherCase(`MATCH ${pattern} CREATE (a)-[:FZ]->(:Fz {s: $p})`, { p: 'c'.repeat(p) }, { p }, true)),
  fc.tuple(fresh, fc.constantFrom(1, 50, 3_000))
    .map(([name, k]) => cypherCase(`CREATE ${Array.from({ length: k }, (_, i) => `(:L${name}_${i})`).join(', ')}`, {}, { k }, true)),
  fc.tuple(fresh, fc.constantFrom(1, 100, 5_000))
    .map(([name, k]) => cypherCase(`MATCH (a:Hub) SET ${Array.from({ length: k }, (_, i) => `a.p${name}_${i} = ${i}`).join(', ')}`, {}, { k }, true)),
  fc.constant(null).map(() => cypherCase('MATCH (a:Hub {id: \'hub-0\'}) SET a.blob = a.blob + a.blob', {}, {}, true)),
  fc.constant(null).map(() => cypherCase('MATCH (x:Fz) DETACH DELETE x', {}, {}, true)),
);

const graphqlMutation = fc.oneof(
  fc.tuple(fresh, fc.constantFrom(10, 2_000, 20_000), fc.boolean())
    .map(([name, k, newLabel]) => graphqlCase('mutation ($l: String!, $p: JSON!) { createNode(label: $l, props: $p) { id } }',
      { l: newLabel ? `N${name}` : 'Fz', p: Object.fromEntries(Array.from({ length: k }, (_, i) => [`m${name}_${i}`, i])) }, { k, newLabel }, true)),
  fc.tuple(stringSize, fc.integer({ min: 1, max: 15 }))
    .map(([p, copies]) => graphqlCase(`mutation ($p: JSON!) { ${Array.from({ length: copies }, (_, i) => `m${i}: createNode(label: "Fz", props: $p) { id }`).join(' ')} }`,
      { p: { s: 'g'.repeat(p) } }, { p, copies }, true)),
  fc.tuple(fc.constantFrom('hub-1', 'leaf-1', 'wide-0'), stringSize)
    .map(([id, p]) => graphqlCase(`mutation ($p: JSON!) { updateNode(id: "${id}", set: $p) { id } }`, { p: { big: 'u'.repeat(p) } }, { p }, true)),
);

/** Every kind of hostile request, reads more often than writes. */
export const hostileCase: fc.Arbitrary<HostileCase> = fc.oneof(
  { arbitrary: graphqlListRead, weight: 4 },
  { arbitrary: graphqlEntities, weight: 1 },
  { arbitrary: cypherRead, weight: 4 },
  { arbitrary: cypherValueRead, weight: 3 },
  { arbitrary: cypherWrite, weight: 2 },
  { arbitrary: cypherClauseRead, weight: 3 },
  { arbitrary: cypherClauseWrite, weight: 1 },
  { arbitrary: graphqlMutation, weight: 1 },
);
