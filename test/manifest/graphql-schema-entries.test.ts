import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GraphTypes } from '../../src/graph/engine/graph-types.ts';
import { GraphSchemaBuilder } from '../../src/graph/graphql/index.ts';
import {
  buildCatalogueEntries, fragmentOf, graphqlSource, GraphqlSchemaEntries, PieceDocument, sha256Hex, type BuiltEntries, type CatalogueEntry,
} from '../../src/manifest/index.ts';
import { applyGrowth, growthRounds } from '../support/catalogue-growth.ts';

const SOURCE = 'graph-g';

/** Entries with their documents as text (whatever form they are kept in), quick to compare. */
function plain(built: BuiltEntries): unknown {
  const text = (entry: CatalogueEntry) => entry.document.toString('utf8');
  return { entries: built.entries.map((e) => ({ ...e, document: text(e) })), problems: built.problems };
}

/** Builds with one GraphSchemaBuilder and one GraphqlSchemaEntries, as the catalogue watcher does, and checks each version against the reference. */
function checker() {
  const schemas = new GraphSchemaBuilder();
  const entries = new GraphqlSchemaEntries(SOURCE);
  return (types: GraphTypes): BuiltEntries => {
    const graphSchema = schemas.build(types.read());
    const built = entries.build(graphSchema.schema, graphSchema.sdl);
    expect(plain(built)).toEqual(plain(buildCatalogueEntries(graphqlSource(SOURCE, graphSchema.sdl))));
    return built;
  };
}

describe('GraphqlSchemaEntries', () => {
  it('gives the entries of graphqlSource + buildCatalogueEntries after every step of random catalogue growth', () => {
    fc.assert(fc.property(growthRounds, (rounds) => {
      const types = new GraphTypes();
      const check = checker();
      for (const round of rounds) {
        for (const s of round) applyGrowth(types, s);
        check(types);
      }
    }), { numRuns: 40 });
  });

  it('shares the $defs of connected labels between documents, keeps unchanged operations, and serves the same fragments', () => {
    const types = new GraphTypes();
    const check = checker();
    for (let i = 0; i < 80; i++) types.setType(`L${i}`, 'p', 'Int');
    types.setType('Lone', 'p', 'Int');
    for (let i = 0; i < 79; i++) types.addPair('NEXT', `L${i}`, `L${i + 1}`);
    const before = check(types);
    // The 80 labels reach one another: their list documents hold the same 80 definitions, one shared buffer.
    const l3 = before.entries.find((e) => e.manifest.operation === 'L3')!;
    const l7 = before.entries.find((e) => e.manifest.operation === 'L7')!;
    expect(l3.document).toBeInstanceOf(PieceDocument);
    const shared = (l3.document as PieceDocument).pieces().filter((p) => (l7.document as PieceDocument).pieces().some((q) => q.buffer === p.buffer && q.byteOffset === p.byteOffset));
    expect(shared.reduce((n, p) => n + p.length, 0)).toBeGreaterThan(l3.document.length / 2);
    const whole = Buffer.from(l3.document.toString('utf8'));
    for (let index = 0; index < l3.manifest.fragment_count; index++) {
      expect(Buffer.from(fragmentOf(l3.document, index)!).equals(fragmentOf(whole, index)!)).toBe(true);
    }
    expect(sha256Hex(l3.document)).toBe(l3.manifest.schema_sha256);

    types.setType('L5', 'q', 'String');
    const after = check(types);
    const kept = (name: string) => after.entries.find((e) => e.manifest.operation === name)!.document === before.entries.find((e) => e.manifest.operation === name)!.document;
    // Lone and its connection do not reach L5; every other label does (the chain), and so do createNode and updateNode.
    expect(['Lone', 'LoneConnection', 'deleteNode', 'addEdge', 'removeEdge'].every(kept)).toBe(true);
    expect(['L0', 'L79Connection', 'createNode'].some(kept)).toBe(false);
  });

  it('takes the search field names from the type names when an output reaches a thousand types or more', () => {
    const types = new GraphTypes();
    for (let i = 0; i < 1030; i++) types.addLabel(`T${String(i).padStart(4, '0')}`);
    types.setType('T0000', 'name', 'String');
    // createNode and updateNode reach every label through Node; each label's own operations reach one or three types.
    const built = checker()(types);
    expect(built.entries.find((e) => e.manifest.operation === 'createNode')!.fields).toHaveLength(256);
  });
});
