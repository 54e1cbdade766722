import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCatalogueEntriesStrict, Catalogue, toolActionSource, type CatalogueEntry, type ToolAction } from '../../src/manifest/index.ts';

/** A small pool, so sources share operation names and (through identical actions) digests. */
const ACTIONS: ToolAction[] = [
  { name: 'search', description: 'search the schema catalogue', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, outputSchema: { type: 'object' } },
  { name: 'getSchema', description: 'get one verified schema', inputSchema: { type: 'object', properties: { sha: { type: 'string' } } }, outputSchema: { type: 'object' } },
  { name: 'listPeople', description: 'list people by team', inputSchema: { type: 'object', properties: { team: { type: 'string' }, first: { type: 'integer' } } }, outputSchema: { type: 'array' } },
  { name: 'createNode', description: 'create a node in a graph', inputSchema: { type: 'object', properties: { label: { type: 'string' } } }, outputSchema: { type: 'object' } },
  { name: 'search', description: 'search people', inputSchema: { type: 'object', properties: { name: { type: 'string' } } }, outputSchema: { type: 'object' } },
  { name: 'drop', description: 'drop a graph', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
];
const SOURCES = ['alpha', 'beta', 'gamma'];
const QUERIES = ['search', 'schema', 'people team', 'graph', 'creat', 'beta-drop', 'nothing'];

const built = new Map<string, CatalogueEntry[]>();
function entriesOf(source: string, picks: readonly number[]): CatalogueEntry[] {
  const key = `${source}:${picks.join(',')}`;
  let entries = built.get(key);
  if (!entries) {
    entries = buildCatalogueEntriesStrict(toolActionSource(source, picks.map((i) => ACTIONS[i]!)));
    built.set(key, entries);
  }
  return entries;
}

type Step = { put: string; picks: number[] } | { remove: string };

/** Everything a reader can observe of a catalogue. */
function observe(catalogue: Catalogue) {
  const entries = catalogue.entries();
  const names = new Set(entries.flatMap((e) => [e.manifest.alias, e.manifest.operation, e.manifest.alias.toUpperCase()]));
  return {
    sources: catalogue.sourceNames(),
    entries: entries.map((e) => e.manifest.alias),
    size: catalogue.size,
    byDigest: [...new Set(entries.map((e) => e.manifest.schema_sha256))].map((d) => catalogue.entryByDigest(d)?.manifest.alias),
    lookups: [...names].sort().map((n) => [n, catalogue.lookup(n).map((e) => e.manifest.alias)]),
    searches: QUERIES.map((q) => catalogue.search(q, 20).map((r) => [r.manifest.alias, Math.round(r.score * 1e9) / 1e9])),
  };
}

describe('Catalogue updates in place', () => {
  it('after any sequence of putSource and removeSource, reads equal a catalogue built fresh from the result', () => {
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ put: fc.constantFrom(...SOURCES), picks: fc.uniqueArray(fc.integer({ min: 0, max: ACTIONS.length - 1 }), { maxLength: ACTIONS.length }) }),
      fc.record({ remove: fc.constantFrom(...SOURCES) }),
    );
    fc.assert(fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
      const live = new Catalogue({ publicBaseUrl: 'http://127.0.0.1:1' });
      const last = new Map<string, CatalogueEntry[]>();
      for (const s of steps) {
        if ('put' in s) {
          const entries = entriesOf(s.put, s.picks);
          live.putSource(s.put, entries);
          last.set(s.put, entries);
        } else {
          live.removeSource(s.remove);
          last.delete(s.remove);
        }
      }
      const fresh = new Catalogue({ publicBaseUrl: 'http://127.0.0.1:1' });
      for (const name of live.sourceNames()) fresh.putSource(name, last.get(name)!);
      expect(observe(live)).toEqual(observe(fresh));
    }), { numRuns: 150 });
  });

  it('a refused source changes nothing', () => {
    const catalogue = new Catalogue({ publicBaseUrl: 'http://127.0.0.1:1' });
    catalogue.putSource('alpha', entriesOf('alpha', [0, 1]));
    const before = observe(catalogue);
    const generation = catalogue.generation;
    // alpha's entries again under another name: their aliases are alpha's.
    expect(() => catalogue.putSource('beta', entriesOf('alpha', [0]))).toThrow('is already taken by source "alpha"');
    expect(() => catalogue.putSource('ALPHA', entriesOf('beta', [2]))).toThrow('source names must differ in more than case');
    expect(observe(catalogue)).toEqual(before);
    expect(catalogue.generation).toBe(generation);
  });
});
