import { describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphCatalogue } from '../../../src/graph/engine/index.ts';
import { pascalCase, schemaModelFromCatalogue, sdlFromCatalogue } from '../../../src/graph/schema/index.ts';
import { openEngine } from '../engine/helpers.ts';

const catalogue: GraphCatalogue = {
  epoch: 'x',
  labels: [
    { label: 'Doc', properties: { title: 'String' } },
    { label: 'Person', properties: { KNOWS: 'Boolean', first: 'Int', tags: '[String]', w: 'Float' } },
    { label: 'Repo', properties: {} },
  ],
  edgeTypes: [
    { type: 'AUTHORED', pairs: [{ src: 'Doc', tgt: 'Doc' }, { src: 'Person', tgt: 'Doc' }, { src: 'Person', tgt: 'Repo' }] },
    { type: 'KNOWS', pairs: [{ src: 'Person', tgt: 'Person' }] },
  ],
};

describe('schema model', () => {
  it.each([['AUTHORED', 'Authored'], ['WORKS_AT', 'WorksAt'], ['worksAt', 'WorksAt'], ['_x', 'X']])('pascalCase(%s) is %s', (a, b) => {
    expect(pascalCase(a)).toBe(b);
  });

  it('names unions by edge type, suffixes an edge field that meets a property, keeps pagination names out of filters', () => {
    const model = schemaModelFromCatalogue(catalogue);
    expect(model.unions).toEqual([{ name: 'AuthoredSource', members: ['Doc', 'Person'] }, { name: 'AuthoredTarget', members: ['Doc', 'Repo'] }]);
    const person = model.labels.find((l) => l.label === 'Person')!;
    expect(person.edges.map((e) => [e.name, e.edgeType, e.direction, e.targetType])).toEqual([
      ['AUTHORED', 'AUTHORED', 'out', 'AuthoredTarget'],
      ['KNOWS_edge', 'KNOWS', 'out', 'Person'],
      ['KNOWS_in', 'KNOWS', 'in', 'Person'],
    ]);
    expect(person.filters.map((f) => f.name)).toEqual(['KNOWS', 'w']);
    const doc = model.labels.find((l) => l.label === 'Doc')!;
    // Doc reaches only Doc over AUTHORED, so its field is typed Doc, not the union.
    expect(doc.edges.find((e) => e.name === 'AUTHORED')?.targetType).toBe('Doc');
    expect(doc.edges.find((e) => e.name === 'AUTHORED_in')?.targetType).toBe('AuthoredSource');
    expect(() => buildSubgraphSchema({ typeDefs: parse(sdlFromCatalogue(catalogue)) })).not.toThrow();
  });

  it('refuses a label that clashes with a generated type name', () => {
    const clash: GraphCatalogue = { epoch: 'x', labels: [{ label: 'P', properties: {} }, { label: 'PConnection', properties: {} }], edgeTypes: [] };
    expect(() => schemaModelFromCatalogue(clash)).toThrow(expect.objectContaining({ code: 'TG_NAME_INVALID', message: expect.stringContaining('"PConnection"') }));
  });

  it.each(['Query', 'PageInfo', 'Node', '_Entity'])('the engine refuses the reserved label %s', async (label) => {
    const engine = await openEngine();
    await engine.createGraph('g');
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'createNode', label }] })).rejects.toMatchObject({ code: 'TG_NAME_INVALID' });
  });
});
