import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEMA_CAPS, type MutationInput, type SchemaCaps } from '../../../src/graph/engine/index.ts';
import { MemoryStore } from '../../../src/graph/persist/index.ts';
import { openEngine } from './helpers.ts';
import { failure } from '../../support/toolgraph-failure.ts';

const SMALL: SchemaCaps = { maxLabels: 3, maxEdgeTypes: 2, maxPropertiesPerLabel: 3, maxSchemaFields: 8, maxNameLength: 10 };

async function refusal(caps: SchemaCaps, seed: readonly MutationInput[], batch: readonly MutationInput[]) {
  const engine = await openEngine({ schemaCaps: caps });
  await engine.createGraph('g');
  if (seed.length > 0) await engine.commit({ graph: 'g', mutations: seed });
  const before = engine.view('g');
  const version = before.version;
  const catalogue = before.catalogue;
  const error = await failure(engine.commit({ graph: 'g', mutations: batch }));
  // Nothing changed: not the version, not the catalogue.
  expect(engine.view('g').version).toBe(version);
  expect(engine.view('g').catalogue).toBe(catalogue);
  await engine.close();
  return error;
}

describe('schema caps', () => {
  it.each([
    ['maxLabels', 'TOOLGRAPH_GRAPH_MAX_LABELS', [{ op: 'createNode', id: 'a', label: 'A' }], [
      { op: 'createNode', label: 'B' }, { op: 'createNode', label: 'C' }, { op: 'createNode', label: 'D' }, { op: 'createNode', label: 'E' },
    ], 2, 5, 'graph "g" would have 5 labels; the cap is 3 (TOOLGRAPH_GRAPH_MAX_LABELS)'],
    ['maxPropertiesPerLabel', 'TOOLGRAPH_GRAPH_MAX_PROPERTIES_PER_LABEL', [{ op: 'createNode', id: 'a', label: 'A', props: { p: 1 } }], [
      { op: 'updateNode', id: 'a', set: { p: 2, q: 1 } }, { op: 'createNode', label: 'A', props: { r: 1, s: 1, t: 1 } },
    ], 1, 5, 'label "A" would have 5 properties; the cap is 3 (TOOLGRAPH_GRAPH_MAX_PROPERTIES_PER_LABEL)'],
    ['maxEdgeTypes', 'TOOLGRAPH_GRAPH_MAX_EDGE_TYPES', [{ op: 'createNode', id: 'a', label: 'A' }], [
      { op: 'addEdge', src: 'a', tgt: 'a', type: 'X' }, { op: 'addEdge', src: 'a', tgt: 'a', type: 'Y' }, { op: 'addEdge', src: 'a', tgt: 'a', type: 'Z' },
    ], 2, 3, 'graph "g" would have 3 edge types; the cap is 2 (TOOLGRAPH_GRAPH_MAX_EDGE_TYPES)'],
    // 3 + 3 properties, then the label pairs (X, A, B) and (X, B, A); a repeated pair adds nothing.
    ['maxSchemaFields', 'TOOLGRAPH_GRAPH_MAX_SCHEMA_FIELDS', [
      { op: 'createNode', id: 'a', label: 'A', props: { p: 1, q: 1, r: 1 } }, { op: 'createNode', id: 'b', label: 'B', props: { p: 1, q: 1, r: 1 } },
    ], [
      { op: 'addEdge', src: 'a', tgt: 'b', type: 'X' }, { op: 'addEdge', src: 'a', tgt: 'b', type: 'X' }, { op: 'addEdge', src: 'b', tgt: 'a', type: 'X' },
      { op: 'addEdge', src: 'b', tgt: 'b', type: 'X' },
    ], 3, 9, 'graph "g" would have 9 schema fields (properties of all labels plus edge-type label pairs); the cap is 8 (TOOLGRAPH_GRAPH_MAX_SCHEMA_FIELDS)'],
    ['maxNameLength', 'TOOLGRAPH_GRAPH_MAX_NAME_LENGTH', [], [
      { op: 'createNode', label: 'A', props: { short: 1 } }, { op: 'createNode', label: 'A', props: { elevenchars: 1 } },
    ], 1, 11, 'the new property name "elevenchars" is 11 characters long; the cap is 10 (TOOLGRAPH_GRAPH_MAX_NAME_LENGTH)'],
  ] as const)('refuses a batch that would cross %s, naming the cap, its value and %s', async (cap, setting, seed, batch, index, found, text) => {
    const error = await refusal(SMALL, seed, batch);
    expect(error).toMatchObject({ code: 'TG_SCHEMA_CAP_EXCEEDED', details: { limit: cap, max: SMALL[cap], found, setting, index } });
    expect(error!.message).toContain(`mutations[${index}]: ${text}. Nothing was written`);
  });

  it('counts only growth: writes that reuse the schema pass at the caps, and a label created and deleted in one batch still counts', async () => {
    const engine = await openEngine({ schemaCaps: SMALL });
    await engine.createGraph('g');
    await engine.commit({ graph: 'g', mutations: [
      { op: 'createNode', id: 'a', label: 'A', props: { p: 1, q: 'x', r: true } },
      { op: 'createNode', id: 'b', label: 'B' }, { op: 'createNode', id: 'c', label: 'C' },
    ] });
    for (let i = 0; i < 5; i++) {
      await engine.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'A', props: { p: i, q: 'y' } }, { op: 'updateNode', id: 'a', set: { r: false } }] });
    }
    // Int widening to Float changes a type, not the number of fields.
    await engine.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'a', set: { p: 0.5 } }] });
    await expect(engine.commit({ graph: 'g', mutations: [{ op: 'createNode', id: 'd', label: 'D' }, { op: 'deleteNode', id: 'd' }] }))
      .rejects.toMatchObject({ code: 'TG_SCHEMA_CAP_EXCEEDED', details: { limit: 'maxLabels' } });
    await engine.close();
  });

  it('loads a stored graph above lowered caps, serves it, and refuses only its growth', async () => {
    const store = new MemoryStore();
    const roomy = await openEngine({ store });
    await roomy.createGraph('g');
    await roomy.commit({ graph: 'g', mutations: [
      { op: 'createNode', id: 'a', label: 'A', props: { p: 1, q: 1, r: 1, s: 1 } },
      ...['B', 'C', 'D', 'E'].map((label) => ({ op: 'createNode' as const, label })),
    ] });
    await roomy.close();
    const tight = await openEngine({ store, schemaCaps: SMALL });
    expect(tight.view('g').catalogue.labels.map((l) => l.label)).toEqual(['A', 'B', 'C', 'D', 'E']);
    await tight.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'E', props: {} }, { op: 'updateNode', id: 'a', set: { s: 2 } }] });
    await expect(tight.commit({ graph: 'g', mutations: [{ op: 'createNode', label: 'F' }] })).rejects.toMatchObject({ details: { limit: 'maxLabels', found: 6 } });
    await expect(tight.commit({ graph: 'g', mutations: [{ op: 'updateNode', id: 'a', set: { t: 1 } }] })).rejects.toMatchObject({ details: { limit: 'maxPropertiesPerLabel', found: 5 } });
    await tight.close();
  });

  it('has defaults that admit ordinary schemas and refuse the issue\'s 20,000-property node', async () => {
    expect(DEFAULT_SCHEMA_CAPS).toEqual({ maxLabels: 1000, maxEdgeTypes: 1000, maxPropertiesPerLabel: 1000, maxSchemaFields: 10_000, maxNameLength: 128 });
    const props: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) props[`p${i}`] = i;
    const error = await refusal(DEFAULT_SCHEMA_CAPS, [], [{ op: 'createNode', label: 'Bloat', props }]);
    expect(error).toMatchObject({ code: 'TG_SCHEMA_CAP_EXCEEDED', details: { limit: 'maxPropertiesPerLabel', max: 1000, found: 20_000 } });
  });
});
