import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';

async function run(dataDir: string, ...args: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const io: CliIo = { out: (l) => lines.push(l), err: (l) => errors.push(l) };
  const code = await runProgram([...args, '--data-dir', dataDir, '--log-level', 'error'], io);
  return { code, out: lines.join('\n'), err: errors.join('\n') };
}

let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tg-explain-'));
  const file = join(dataDir, 'people.jsonl');
  writeFileSync(file, [
    { label: 'Person', id: 'p1', props: { name: 'Ada' } },
    { label: 'Person', id: 'p2', props: { name: 'Alan' } },
    { label: 'Org', id: 'o1', props: { name: 'Acme' } },
    { src: 'p1', tgt: 'p2', type: 'INSPIRED' },
    { src: 'p1', tgt: 'o1', type: 'WORKS_AT' },
  ].map((r) => JSON.stringify(r)).join('\n'));
  expect((await run(dataDir, 'graph', 'import', 'people', file, '--create')).code).toBe(0);
});

describe('toolgraph explain', () => {
  it('prints the Cypher of each root field and the plan, and the Cypher runs to the same data', async () => {
    const query = 'query($who: String) { ada: Person(name: $who, first: 1) { name INSPIRED(first: 2) { name } WORKS_AT { __typename name } } Org { INSPIRED_in: WORKS_AT_in { id } } }';
    const result = await run(dataDir, 'explain', 'people', query, '--variables', '{"who":"Ada"}');
    expect(result).toEqual({
      code: 0,
      err: '',
      out: [
        'Cypher for ada:',
        "MATCH (person:Person {name: 'Ada'})",
        "RETURN person {.name, INSPIRED: [(person)-[:INSPIRED]->(person2:Person) | person2 {.name}][..2], WORKS_AT: [(person)-[:WORKS_AT]->(org:Org) | org {__typename: 'Org', .name}]} AS ada",
        'ORDER BY person.id',
        'LIMIT 1',
        '',
        'Cypher for Org:',
        'MATCH (org:Org)',
        'RETURN org {INSPIRED_in: [(org)<-[:WORKS_AT]-(person:Person) | person {.id}]} AS Org',
        'ORDER BY org.id',
        '',
        'Plan (one scan per root field, one expansion per edge field and level over all parents at once):',
        "1. scan Person for ada: filter name = 'Ada'; first 1",
        '2.   expand (Person)-[:INSPIRED]->(Person) for ada.INSPIRED: first 2 per parent',
        '3.   expand (Person)-[:WORKS_AT]->(Org) for ada.WORKS_AT',
        '4. scan Org for Org',
        '5.   expand (Org)<-[:WORKS_AT]-(Person) for Org.INSPIRED_in',
      ].join('\n'),
    });
    const cypher = await run(dataDir, 'cypher', 'people', result.out.split('\n').slice(1, 5).join('\n'));
    expect(JSON.parse(cypher.out)).toEqual({ id: 1, result: { columns: ['ada'], rows: [[{ INSPIRED: [{ name: 'Alan' }], WORKS_AT: [{ __typename: 'Org', name: 'Acme' }], name: 'Ada' }]], version: 1 } });
  });

  it('prints JSON with --json', async () => {
    const result = await run(dataDir, 'explain', 'people', 'query Q { Person { id } }', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({
      graph: 'people',
      operation: 'Q',
      cypher: [{ key: 'Person', statement: 'MATCH (person:Person)\nRETURN person {.id} AS Person\nORDER BY person.id' }],
      steps: [{ kind: 'scan', label: 'Person', path: 'Person', filters: [], limit: null }],
    });
  });

  it.each<[string, string[], string]>([
    ['an unknown graph', ['nope', '{ Person { id } }'], 'toolgraph: TG_GRAPH_NOT_FOUND'],
    ['a mutation', ['people', 'mutation { deleteNode(id: "p1") { ok } }'], 'toolgraph: TG_BAD_REQUEST: Only queries translate to Cypher; this is a mutation.'],
    ['an unknown label', ['people', '{ Robot { id } }'], 'toolgraph: TG_GRAPHQL_NO_NODE_TYPE: GraphQL: no node type "Robot" in this graph; root fields must be node labels (Org, Person'],
    ['variables that are not an object', ['people', '{ Person { id } }', '--variables', '[1]'], 'toolgraph: TG_BAD_REQUEST: --variables: expected a JSON object'],
  ])('refuses %s with a TG_ error', async (_name, args, prefix) => {
    const result = await run(dataDir, 'explain', ...args);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err.startsWith(prefix)).toBe(true);
  });
});
