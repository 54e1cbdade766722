import { describe, expect, it } from 'vitest';
import { prepareCypher } from '../../../src/graph/cypher/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

describe('type checks before a statement runs', () => {
  it.each(['RETURN 123 AND true', "RETURN false OR 'foo'", 'RETURN [] XOR true', 'RETURN NOT {}', 'MATCH (n) WHERE n.x = 1 AND 1.5 RETURN n'])('refuses a non-boolean literal operand of a boolean operator: %s', async (text) => {
    const error = await failure(Promise.resolve().then(() => prepareCypher(text)));
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain('expects Boolean operands');
  });
  it('leaves null, booleans and expressions to run time', () => {
    for (const text of ['RETURN null AND true', 'RETURN true OR false', 'MATCH (n) WHERE n.x AND n.y RETURN n', 'RETURN NOT null']) expect(() => prepareCypher(text)).not.toThrow();
  });
});

describe('literal argument types before a statement runs', () => {
  it.each([
    ['RETURN 1 IN true', 'IN expects a list on its right, but this is a Boolean literal'],
    ['RETURN 1 IN 123', 'Integer literal'],
    ['RETURN 1 IN 123.4', 'Float literal'],
    ["RETURN 1 IN 'foo'", 'String literal'],
    ['RETURN 1 IN {x: []}', 'Map literal'],
    ['RETURN properties(1)', 'properties() takes a node, relationship or map, but this is a Integer literal'],
    ["RETURN PROPERTIES('Cypher')", 'String literal'],
    ['RETURN properties([true, false])', 'List literal'],
  ])('%s', async (text, message) => {
    const error = await failure(Promise.resolve().then(() => prepareCypher(text)));
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain(message);
  });
  it('leaves lists, null, parameters, maps and variables to run time', () => {
    for (const text of ['RETURN 1 IN [1, 2]', 'RETURN 1 IN null', 'RETURN 1 IN $list', 'MATCH (n) RETURN n.x IN n.l', 'RETURN properties({a: 1})', 'RETURN properties(null)', 'MATCH (n) RETURN properties(n)', 'RETURN properties($m)']) {
      expect(() => prepareCypher(text)).not.toThrow();
    }
  });
});

describe('projection checks before a statement runs', () => {
  it.each([
    ['RETURN 1 AS x SKIP -1', 'SKIP needs a non-negative integer'],
    ['RETURN 1 AS x LIMIT 1.5', 'LIMIT needs a non-negative integer'],
    ['MATCH (n) WITH n.x AS foo ORDER BY count(*) RETURN foo', 'ORDER BY cannot aggregate'],
    ['MATCH (a) CREATE (a)', 'already bound'],
    ['MATCH (a) MERGE (a)', 'already bound'],
  ])('%s', async (text, message) => {
    const error = await failure(Promise.resolve().then(() => prepareCypher(text)));
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain(message);
  });
  it('still takes parameters and aggregates sorted by in an aggregating projection', () => {
    for (const text of ['RETURN 1 AS x SKIP $s LIMIT $l', 'MATCH (n) RETURN n.x AS x, count(*) AS c ORDER BY count(*) DESC', 'MATCH (a) CREATE (a)-[:T]->(:B)']) expect(() => prepareCypher(text)).not.toThrow();
  });
});
