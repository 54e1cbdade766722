import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET_LIMITS } from '../../../src/graph/budget/index.ts';
import { GraphEngine } from '../../../src/graph/engine/index.ts';
import { MemoryPersistence } from '../../../src/graph/persist/index.ts';
import { prepareCypher, procedureRegistry, runCypher, runCypherJson, type Procedure, type RunOptions } from '../../../src/graph/cypher/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

let engine: GraphEngine;

beforeEach(async () => {
  engine = await GraphEngine.open({ persistence: new MemoryPersistence() });
  await engine.createGraph('g');
  await engine.commit({
    graph: 'g',
    mutations: [
      { op: 'createNode', id: 'ann', label: 'Person', props: { name: 'Ann', age: 30 } },
      { op: 'createNode', id: 'bob', label: 'Person', props: { name: 'Bob' } },
      { op: 'createNode', id: 'acme', label: 'Company', props: { title: 'Acme' } },
      { op: 'createNode', id: 'gone', label: 'Ghost', props: { boo: true } },
      { op: 'addEdge', src: 'ann', tgt: 'bob', type: 'KNOWS' },
      { op: 'addEdge', src: 'ann', tgt: 'acme', type: 'WORKS_AT' },
      { op: 'addEdge', src: 'gone', tgt: 'ann', type: 'HAUNTS' },
    ],
  });
  // Ghost stays in the catalogue (it only grows) but has no node left.
  await engine.commit({ graph: 'g', mutations: [{ op: 'deleteNode', id: 'gone' }] });
});
afterEach(async () => {
  await engine.close();
});

const rows = async (text: string, params?: Record<string, unknown> | null, options?: RunOptions) => (await runCypher(engine, 'g', text, params, options)).rows;

describe('built-in procedures', () => {
  it('db.labels() lists the labels that have nodes, in code-point order, standalone and in a query', async () => {
    expect(await runCypher(engine, 'g', 'CALL db.labels()')).toMatchObject({ columns: ['label'], rows: [['Company'], ['Person']] });
    expect(await rows('CALL db.labels')).toEqual([['Company'], ['Person']]);
    expect(await rows('CALL db.labels() YIELD label RETURN label ORDER BY label DESC')).toEqual([['Person'], ['Company']]);
    expect(await rows('CALL db.labels() YIELD label MATCH (n) WHERE labels(n)[0] = label RETURN label, count(n) AS n')).toEqual([['Company', 1], ['Person', 2]]);
  });

  it('db.propertyKeys() and db.relationshipTypes() list the catalogue of the labels that have nodes', async () => {
    expect(await runCypher(engine, 'g', 'CALL db.propertyKeys()')).toMatchObject({ columns: ['propertyKey'], rows: [['age'], ['name'], ['title']] });
    // HAUNTS joins Ghost, which has no node now.
    expect(await runCypher(engine, 'g', 'CALL db.relationshipTypes()')).toMatchObject({ columns: ['relationshipType'], rows: [['KNOWS'], ['WORKS_AT']] });
  });

  it('YIELD renames, filters with WHERE, and YIELD * gives every output', async () => {
    expect(await runCypher(engine, 'g', "CALL db.labels() YIELD label AS l WHERE l STARTS WITH 'P'")).toMatchObject({ columns: ['l'], rows: [['Person']] });
    expect(await runCypher(engine, 'g', 'CALL db.relationshipTypes() YIELD *')).toMatchObject({ columns: ['relationshipType'], rows: [['KNOWS'], ['WORKS_AT']] });
    expect(await rows("MATCH (p:Person) CALL db.labels() YIELD label WHERE label <> 'Person' RETURN p.name, label")).toEqual([['Ann', 'Company'], ['Bob', 'Company']]);
    expect(await rows('CALL db.labels() YIELD label WITH count(*) AS c CALL db.labels() YIELD label RETURN *')).toEqual([[2, 'Company'], [2, 'Person']]);
  });

  it('a read statement of procedures may feed a write', async () => {
    const result = await runCypher(engine, 'g', 'CALL db.labels() YIELD label CREATE (:Seen {label: label})');
    expect(result.stats?.nodesCreated).toBe(2);
    expect(await rows('MATCH (s:Seen) RETURN s.label ORDER BY s.label')).toEqual([['Company'], ['Person']]);
  });

  it('feeds CALL { … } IN TRANSACTIONS, which keeps its own CALL', async () => {
    const result = await runCypher(engine, 'g', 'CALL db.labels() YIELD label CALL { WITH label CREATE (:Seen {label: label}) } IN TRANSACTIONS OF 1 ROWS');
    expect(result.stats).toMatchObject({ nodesCreated: 2, transactions: 2 });
    expect(await rows('CALL db.labels() YIELD `label` AS l RETURN collect(l)')).toEqual([[['Company', 'Person', 'Seen']]]);
  });

  it('runCypherJson answers the same canonical JSON', async () => {
    expect(await runCypherJson(engine, 'g', 'CALL db.labels() YIELD label RETURN label')).toBe('{"columns":["label"],"rows":[["Company"],["Person"]],"version":2}');
  });
});

describe('errors', () => {
  const compile = (text: string, options?: RunOptions) => {
    try {
      prepareCypher(text, options);
    } catch (error) {
      return error as { code: string; message: string };
    }
    throw new Error(`${text} prepared`);
  };

  it('an unknown procedure is a syntax error naming the procedures there are (case-sensitive, with a hint)', () => {
    expect(compile('CALL db.nothing()')).toMatchObject({ code: 'TG_CYPHER_SYNTAX', message: expect.stringContaining('there is no procedure named db.nothing. The procedures are db.labels(), db.propertyKeys(), db.relationshipTypes()') });
    expect(compile('CALL DB.Labels() YIELD label RETURN label').message).toContain('did you mean db.labels?');
    expect(compile('CALL apoc.meta.schema').code).toBe('TG_CYPHER_SYNTAX');
  });

  it('the wrong number of arguments, YIELD of an unknown output, and binding nothing in a query are syntax errors', () => {
    expect(compile('CALL db.labels(1)').message).toContain('db.labels() takes 0 arguments, got 1. Its signature: db.labels() :: (label :: STRING)');
    expect(compile('CALL db.labels() YIELD name RETURN name').message).toContain('db.labels has no output named name: its outputs are label');
    expect(compile('CALL db.labels() RETURN 1').message).toContain('must name the outputs it binds: YIELD label');
    expect(compile('MATCH (n) CALL db.labels() YIELD * RETURN n').message).toContain('YIELD * is only allowed when CALL db.labels is the whole statement');
  });

  it('YIELD may not rebind a variable', () => {
    expect(compile('WITH 1 AS label CALL db.labels() YIELD label RETURN label').message).toContain('variable `label` is already bound');
    expect(compile('CALL db.labels() YIELD label AS x, label AS x RETURN x').message).toContain('variable `x` is already bound');
    expect(compile('CALL db.labels() YIELD label RETURN nope').message).toContain('variable `nope` is not defined');
  });

  it('aggregates are not arguments, and a call after an update is refused as MATCH is', () => {
    expect(compile('MATCH (n) CALL db.labels() YIELD label WHERE count(n) > 1 RETURN label').code).toBe('TG_CYPHER_SYNTAX');
    expect(compile('CREATE (:P) WITH 1 AS x CALL db.labels() YIELD label RETURN label')).toMatchObject({ code: 'TG_CYPHER_UNSUPPORTED', message: expect.stringContaining('a procedure call after an update') });
  });
});

/** A procedure with arguments, for the argument rules. */
const echo: Procedure = {
  name: 'test.echo',
  description: 'its arguments back',
  parameters: [{ name: 'n', type: 'INTEGER?' }, { name: 'x', type: 'FLOAT' }, { name: 's', type: 'ANY?' }],
  outputs: [{ name: 'n', type: 'INTEGER?' }, { name: 'x', type: 'NUMBER' }, { name: 's', type: 'ANY?' }],
  *rows(args) {
    yield args;
  },
};

describe('embedder procedures (RunOptions.procedures)', () => {
  const registry = procedureRegistry([echo]);
  const options: RunOptions = { procedures: registry };

  it('are called as the built-ins are, with their own signature, beside them', async () => {
    expect(await runCypher(engine, 'g', 'CALL test.echo(1, 2, [1, {a: "b"}])', null, options)).toMatchObject({ columns: ['n', 'x', 's'], rows: [[1, 2, [1, { a: 'b' }]]] });
    expect(await rows('CALL test.echo(null, 2.5, null) YIELD x AS y RETURN y', null, options)).toEqual([[2.5]]);
    expect(await rows('CALL db.labels() YIELD label RETURN count(*)', null, options)).toEqual([[2]]);
    // Without the registry the procedure does not exist.
    expect((await failure(runCypher(engine, 'g', 'CALL test.echo(1, 2, 3)'))).code).toBe('TG_CYPHER_SYNTAX');
  });

  it('take their arguments from the parameters when called standalone without parentheses', async () => {
    expect(await rows('CALL test.echo', { n: 3, x: 4, s: 'five' }, options)).toEqual([[3, 4, 'five']]);
    const missing = await failure(runCypher(engine, 'g', 'CALL test.echo', { n: 3, x: 4 }, options));
    expect(missing).toMatchObject({ code: 'TG_CYPHER_RUNTIME', message: expect.stringContaining('Missing parameter $s') });
    expect((await failure(runCypher(engine, 'g', 'CALL test.echo YIELD n RETURN n', { n: 3, x: 4, s: 5 }, options))).message).toContain('only a CALL that is the whole statement may do');
  });

  it('check argument types: literals when prepared, other values when run', async () => {
    expect((await failure(runCypher(engine, 'g', 'CALL test.echo(true, 1, 1)', null, options)))).toMatchObject({
      code: 'TG_CYPHER_SYNTAX', message: expect.stringContaining('test.echo() takes n :: INTEGER?, but this argument is a Boolean literal'),
    });
    expect((await failure(runCypher(engine, 'g', 'CALL test.echo(1.5, 1, 1)', null, options))).code).toBe('TG_CYPHER_SYNTAX');
    expect((await failure(runCypher(engine, 'g', 'CALL test.echo(1, null, 1)', null, options))).message).toContain('takes x :: FLOAT, but this argument is null');
    expect(await failure(runCypher(engine, 'g', 'CALL test.echo($n, 1, 1)', { n: 'one' }, options))).toMatchObject({
      code: 'TG_CYPHER_RUNTIME', message: 'test.echo() takes n :: INTEGER?, got a String.',
    });
    expect((await failure(runCypher(engine, 'g', 'MATCH (p:Person) CALL test.echo(1, 1, p) YIELD s RETURN s', null, options))).message).toBe('test.echo() takes s :: ANY?, got a Node.');
    expect((await failure(runCypher(engine, 'g', 'MATCH (p:Person) CALL test.echo(1, 1, {a: [p]}) YIELD s RETURN s', null, options))).message).toContain('procedures take numbers, strings, booleans, lists and maps');
    // A FLOAT takes an integer, NUMBER either.
    expect(await rows('CALL test.echo(-1, -2, -3)', null, options)).toEqual([[-1, -2, -3]]);
  });

  it('a void procedure passes each row through', async () => {
    let calls = 0;
    const touch: Procedure = { name: 'test.touch', description: 'counts its calls', parameters: [], outputs: [], rows() {
      calls++;
      return [];
    } };
    const withTouch = { procedures: procedureRegistry([touch]) };
    expect(await rows('MATCH (p:Person) CALL test.touch() RETURN p.name ORDER BY p.name', null, withTouch)).toEqual([['Ann'], ['Bob']]);
    expect(calls).toBe(2);
    expect(await runCypher(engine, 'g', 'CALL test.touch()', null, withTouch)).toMatchObject({ columns: [], rows: [] });
    expect(calls).toBe(3);
    expect((await failure(runCypher(engine, 'g', 'CALL test.touch() YIELD x', null, withTouch))).message).toContain('it has no outputs');
  });

  it('a procedure that breaks its signature is a runtime error naming it; its maps are safe to read', async () => {
    const liar: Procedure = { name: 'test.liar', description: 'gives what it did not promise', parameters: [{ name: 'k', type: 'INTEGER' }], outputs: [{ name: 'v', type: 'MAP?' }], *rows([k]) {
      if (k === 1) yield [{ a: 1 }];
      if (k === 2) yield ['not a map'];
      if (k === 3) yield [];
    } };
    const withLiar = { procedures: procedureRegistry([liar]) };
    expect(await rows('CALL test.liar(1) YIELD v RETURN v.a, v.constructor, v.__proto__', null, withLiar)).toEqual([[1, null, null]]);
    expect(await failure(runCypher(engine, 'g', 'CALL test.liar(2)', null, withLiar))).toMatchObject({ code: 'TG_CYPHER_RUNTIME', message: 'Procedure test.liar broke its signature: its output v :: MAP? got "not a map".' });
    expect((await failure(runCypher(engine, 'g', 'CALL test.liar(3)', null, withLiar))).message).toContain('a row of 0 values for its 1 outputs');
  });

  it('a statement prepared against one registry does not run against another', async () => {
    const prepared = prepareCypher('CALL db.labels()');
    await expect(runCypher(engine, 'g', prepared, null, options)).rejects.toThrow('prepared against another procedure registry');
    expect((await runCypher(engine, 'g', prepareCypher('CALL test.echo(1, 1, 1)', options), null, options)).rows).toEqual([[1, 1, 1]]);
  });

  it('a registry refuses bad names, unknown types, duplicates and replacing a built-in', () => {
    const base = { description: '', parameters: [], outputs: [], rows: () => [] };
    expect(() => procedureRegistry([{ ...base, name: 'no spaces allowed' }])).toThrow('not a dotted name');
    expect(() => procedureRegistry([{ ...base, name: 'db.labels' }])).toThrow('Two procedures are named db.labels');
    expect(() => procedureRegistry([{ ...base, name: 'a.b', outputs: [{ name: 'x', type: 'DATE?' as 'ANY' }] }])).toThrow('unknown type "DATE?"');
    expect(() => procedureRegistry([{ ...base, name: 'a.b', parameters: [{ name: 'x', type: 'ANY' }, { name: 'x', type: 'ANY' }] }])).toThrow('two parameters are named x');
  });
});

describe('budget', () => {
  /** Rows without end, counting how many were asked for and whether it was closed. */
  function endless(): { procedure: Procedure; pulled: () => number; closed: () => boolean } {
    let pulled = 0;
    let closed = false;
    return {
      procedure: { name: 'test.endless', description: 'never stops', parameters: [], outputs: [{ name: 'i', type: 'INTEGER' }], *rows() {
        try {
          for (;;) yield [pulled++];
        } finally {
          closed = true;
        }
      } },
      pulled: () => pulled,
      closed: () => closed,
    };
  }

  it('each row a procedure gives counts against maxRows, so an endless one is stopped', async () => {
    const e = endless();
    const error = await failure(runCypher(engine, 'g', 'CALL test.endless() YIELD i RETURN count(i)', null, { procedures: procedureRegistry([e.procedure]), limits: { ...DEFAULT_BUDGET_LIMITS, maxRows: 5000 } }));
    expect(error).toMatchObject({ code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'maxRows', max: 5000 } });
    expect(e.pulled()).toBe(5001);
    expect(e.closed()).toBe(true);
  });

  it('LIMIT stops the pulling and closes the procedure', async () => {
    const e = endless();
    expect(await rows('CALL test.endless() YIELD i RETURN i LIMIT 3', null, { procedures: procedureRegistry([e.procedure]) })).toEqual([[0], [1], [2]]);
    expect(e.pulled()).toBeLessThanOrEqual(1025);
    expect(e.closed()).toBe(true);
  });
});
