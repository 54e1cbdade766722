import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateSchemaManifest } from '../../generated/validators/schema-manifest.ts';
import { catalogueFiles } from '../../scripts/build-catalogue.ts';
import { ToolgraphError } from '../../src/errors/index.ts';
import {
  ALIAS_PATTERN, assignAliases, buildCatalogueEntries, buildCatalogueEntriesStrict, Catalogue, fitAlias, graphqlSource,
  loadStaticCatalogue, sha256Hex, staticCatalogueText, toolActionSource, watchGraphCatalogue, type CatalogueChangeEvent,
  type SchemaSource, type ToolAction,
} from '../../src/manifest/index.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function action(name: string, description = `does ${name}`, fields: string[] = []): ToolAction {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: Object.fromEntries(fields.map((f) => [f, { type: 'string' }])) },
    outputSchema: { type: 'object' },
  };
}

function catalogueWith(...sources: SchemaSource[]): Catalogue {
  const catalogue = new Catalogue({ publicBaseUrl: 'https://schemas.example.com/base/' });
  for (const source of sources) catalogue.putSource(source.name, buildCatalogueEntriesStrict(source));
  return catalogue;
}

describe('aliases', () => {
  it('is <source>-<operation> lowercased, "_" kept', () => {
    expect(assignAliases('tool-server', [{ operation: 'get_Schema', schemaSha256: 'a'.repeat(64) }])).toEqual(['tool-server-get_schema']);
  });

  it('gives colliding operations of one source a digest suffix, in (operation, digest) order', () => {
    const ops = [
      { operation: 'people', schemaSha256: `b${'0'.repeat(63)}` },
      { operation: 'People', schemaSha256: `c${'0'.repeat(63)}` },
      { operation: 'people', schemaSha256: `a${'1'.repeat(63)}` },
    ];
    expect(assignAliases('g', ops)).toEqual(['g-people-b0000000', 'g-people', 'g-people-a1111111']);
  });

  it('truncates to 128 characters with a digest of the whole', () => {
    const long = 'x'.repeat(300);
    const alias = fitAlias(`src-${long}`);
    expect(alias).toHaveLength(128);
    expect(alias.endsWith(`-${sha256Hex(`src-${long}`).slice(0, 12)}`)).toBe(true);
    expect(fitAlias('short')).toBe('short');
  });

  it('always fits the alias pattern and stays unique within a source (property)', () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,300}$/);
    fc.assert(fc.property(fc.array(fc.tuple(name, fc.stringMatching(/^[0-9a-f]{64}$/)), { minLength: 1, maxLength: 20 }), (pairs) => {
      const unique = [...new Map(pairs.map(([op, sha]) => [`${op}/${sha}`, { operation: op, schemaSha256: sha }])).values()];
      const aliases = assignAliases('source-name', unique);
      for (const alias of aliases) {
        expect(alias.length).toBeLessThanOrEqual(128);
        expect(alias).toMatch(ALIAS_PATTERN);
      }
      expect(new Set(aliases).size).toBe(aliases.length);
    }), { numRuns: 100 });
  });
});

describe('operation names', () => {
  it('reports every bad name with TG_OPERATION_NAME_INVALID and never rewrites one', () => {
    const source = toolActionSource('tools', [action('good'), action('1bad'), action('has-dash'), action('x'.repeat(513)), action('_under')]);
    const { entries, problems } = buildCatalogueEntries(source);
    expect(entries.map((e) => e.manifest.operation)).toEqual(['good']);
    expect(problems.map((p) => [p.operation.slice(0, 10), p.code])).toEqual([
      ['1bad', 'TG_OPERATION_NAME_INVALID'],
      ['_under', 'TG_OPERATION_NAME_INVALID'],
      ['has-dash', 'TG_OPERATION_NAME_INVALID'],
      ['xxxxxxxxxx', 'TG_OPERATION_NAME_INVALID'],
    ]);
    let thrown: unknown;
    try {
      buildCatalogueEntriesStrict(source);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolgraphError);
    const error = thrown as ToolgraphError;
    expect(error.code).toBe('TG_OPERATION_NAME_INVALID');
    expect(error.message).toContain('"1bad" does not match ^[A-Za-z][A-Za-z0-9_]*$');
    expect(error.message).toContain('"has-dash"');
    expect(error.message).toContain('"_under"');
    expect(error.message).toContain('longer than 512 characters (513)');
    expect((error.details!['operations'] as unknown[]).length).toBe(4);
  });

  it('accepts a 512-character name', () => {
    expect(buildCatalogueEntries(toolActionSource('tools', [action('a'.repeat(512))])).problems).toEqual([]);
  });
});

describe('catalogue from the real specs', () => {
  const [file] = catalogueFiles(ROOT);
  const built = JSON.parse(file!.content) as { $comment: string; entries: { manifest: { operation: string } }[] };

  it('builds every OpenAPI operation and every root Query and Mutation field', () => {
    expect(built.$comment).toContain('scripts/build-catalogue.ts');
    const operations = built.entries.map((e) => e.manifest.operation);
    for (const op of ['callTool', 'searchSchemas', 'getSchemaManifest', 'getSchemaFragment', 'dispatch', 'health', 'createNode', 'addEdge']) {
      expect(operations).toContain(op);
    }
    expect(operations).not.toContain('_service');
    expect(operations).not.toContain('_entities');
  });

  it('serves only manifests that pass the generated validator', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tg-catalogue-')), 'catalogue.json');
    writeFileSync(path, file!.content);
    const catalogue = new Catalogue({ publicBaseUrl: 'http://127.0.0.1:4000' });
    for (const source of loadStaticCatalogue(path)) catalogue.putSource(source.record.name, source.entries);
    expect(catalogue.size).toBe(built.entries.length);
    for (const entry of catalogue.entries()) {
      const manifest = catalogue.manifestOf(entry);
      expect(validateSchemaManifest(manifest), JSON.stringify(validateSchemaManifest.errors)).toBe(true);
      expect(manifest.manifest_uri).toBe(`http://127.0.0.1:4000/schemas/${manifest.schema_sha256}`);
      expect(manifest.fragment_uri_template).toBe(`http://127.0.0.1:4000/schemas/${manifest.schema_sha256}/fragments/{index}`);
      expect(sha256Hex(entry.document)).toBe(manifest.schema_sha256);
    }
  });

  it('is deterministic, and the loader refuses a hand-edited document', () => {
    expect(catalogueFiles(ROOT)[0]!.content).toBe(file!.content);
    const tampered = JSON.parse(file!.content) as { entries: { schema: { operation: string } }[] };
    tampered.entries[0]!.schema.operation += 'x';
    const path = join(mkdtempSync(join(tmpdir(), 'tg-catalogue-')), 'catalogue.json');
    writeFileSync(path, JSON.stringify(tampered));
    expect(() => loadStaticCatalogue(path)).toThrow(/does not match its manifest/);
  });
});

describe('Catalogue', () => {
  it('builds URIs from the public base URL and rebuilds them when it changes', () => {
    const catalogue = catalogueWith(toolActionSource('tools', [action('ping')]));
    const [entry] = catalogue.entries();
    const sha = entry!.manifest.schema_sha256;
    expect(catalogue.manifestByDigest(sha)!.manifest_uri).toBe(`https://schemas.example.com/base/schemas/${sha}`);
    catalogue.setPublicBaseUrl('http://127.0.0.1:9999');
    expect(catalogue.manifestByDigest(sha)!.fragment_uri_template).toBe(`http://127.0.0.1:9999/schemas/${sha}/fragments/{index}`);
    expect(() => catalogue.setPublicBaseUrl('ftp://x')).toThrow(/http\(s\)/);
  });

  it('refuses an entry whose manifest fails the generated validator, keeping the previous version', () => {
    const catalogue = catalogueWith(toolActionSource('tools', [action('ping')]));
    const [entry] = buildCatalogueEntriesStrict(toolActionSource('tools', [action('pong')]));
    const bad = { ...entry!, manifest: { ...entry!.manifest, alias: '9-not-an-alias' } };
    expect(() => catalogue.putSource('tools', [bad])).toThrow(expect.objectContaining({ code: 'TG_MANIFEST_INVALID', message: expect.stringContaining('/alias') }));
    expect(catalogue.entries().map((e) => e.manifest.operation)).toEqual(['ping']);
  });

  it('refuses alias clashes across sources and source names differing only in case', () => {
    const catalogue = catalogueWith(toolActionSource('tools', [action('ping')]));
    expect(() => catalogue.putSource('Tools', buildCatalogueEntriesStrict(toolActionSource('Tools', [action('pong')])))).toThrow(/differ in more than case/);
  });

  it('looks names up by alias (case-insensitive) or by operation', () => {
    const catalogue = catalogueWith(toolActionSource('a', [action('ping')]), toolActionSource('b', [action('ping', 'other')]));
    expect(catalogue.lookup('A-PING').map((e) => e.source)).toEqual(['a']);
    expect(catalogue.lookup('ping').map((e) => e.source)).toEqual(['a', 'b']);
    expect(catalogue.lookup('nothing')).toEqual([]);
  });

  it('ranks exact operation and alias matches first, then by score', () => {
    const catalogue = catalogueWith(toolActionSource('tools', [
      action('listTrees', 'lists trees and their tree structure, tree by tree', ['tree', 'trees']),
      action('tree', 'one thing'),
      action('plantSeed', 'plants a seed', ['soil']),
    ]));
    const results = catalogue.search('tree');
    expect(results[0]!.manifest.operation).toBe('tree');
    expect(results.map((r) => r.manifest.operation)).toContain('listTrees');
    expect(results.map((r) => r.manifest.operation)).not.toContain('plantSeed');
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score);
    expect(catalogue.search('tools-plantseed')[0]!.manifest.operation).toBe('plantSeed');
    expect(catalogue.search('soil')[0]!.manifest.operation).toBe('plantSeed');
    expect(catalogue.search('seed plant')[0]!.manifest.operation).toBe('plantSeed');
    expect(catalogue.search('')).toEqual([]);
    expect(catalogue.search('   ')).toEqual([]);
    expect(catalogue.search('zzzqqq')).toEqual([]);
    expect(catalogue.search('tree', 1)).toHaveLength(1);
  });
});

describe('tool actions as a catalogue source', () => {
  it('plugs in through the source abstraction and is searchable and served', () => {
    const catalogue = catalogueWith(toolActionSource('tools', [action('github_search', 'Search GitHub issues', ['query', 'repo'])]));
    const [hit] = catalogue.search('issues');
    expect(hit!.manifest.alias).toBe('tools-github_search');
    expect(hit!.description).toBe('Search GitHub issues');
    const document = JSON.parse(Buffer.from(catalogue.fragment(hit!.manifest.schema_sha256, 0)!).toString('utf8'));
    expect(document.operation).toBe('github_search');
    expect(document.input.properties).toHaveProperty('repo');
  });
});

describe('watchGraphCatalogue', () => {
  function fakeEngine() {
    const listeners: ((event: CatalogueChangeEvent) => void)[] = [];
    const graphs = new Map<string, { epoch: string; labels: string[] }>();
    return {
      graphs,
      publish(event: CatalogueChangeEvent) {
        for (const listener of listeners) listener(event);
      },
      feed: {
        subscribe(listener: (event: CatalogueChangeEvent) => void) {
          listeners.push(listener);
          return () => listeners.splice(listeners.indexOf(listener), 1);
        },
      },
      view(graph: string) {
        const catalogue = graphs.get(graph);
        if (!catalogue) throw new ToolgraphError('TG_GRAPH_NOT_FOUND', 'no graph');
        return { catalogue };
      },
      listenerCount: () => listeners.length,
    };
  }
  const sdlOf = (c: { labels: string[] }) => `type Query { ${c.labels.map((l) => `${l}(first: Int): [${l}!]!`).join(' ')} }\n${c.labels.map((l) => `type ${l} { id: ID! }`).join('\n')}`;

  it('builds the graph source now and rebuilds it when the catalogue changes', async () => {
    const engine = fakeEngine();
    engine.graphs.set('main', { epoch: 'e1', labels: ['Person'] });
    const catalogue = new Catalogue({ publicBaseUrl: 'http://127.0.0.1:1' });
    const watch = watchGraphCatalogue(catalogue, engine, 'main', { sdlOf });
    expect(catalogue.entries().map((e) => e.manifest.alias)).toEqual(['graph-main-person']);

    engine.graphs.set('main', { epoch: 'e2', labels: ['Person', 'Topic'] });
    engine.publish({ graph: 'other', catalogueChanged: true, epoch: 'x' });
    expect(catalogue.size).toBe(1);
    engine.publish({ graph: 'main', catalogueChanged: true, epoch: 'e2' });
    await watch.settled();
    expect(catalogue.entries().map((e) => e.manifest.alias)).toEqual(['graph-main-person', 'graph-main-topic']);
    expect(catalogue.search('Topic')[0]!.manifest.operation).toBe('Topic');

    engine.graphs.delete('main');
    engine.publish({ graph: 'main', catalogueChanged: true, epoch: '', kind: 'dropGraph' });
    await watch.settled();
    expect(catalogue.size).toBe(0);
    watch.close();
    expect(engine.listenerCount()).toBe(0);
  });

  it('leaves out and logs operations with bad names, serving the rest', () => {
    const engine = fakeEngine();
    engine.graphs.set('main', { epoch: 'e1', labels: ['Person', '_Hidden'] });
    const logged: unknown[] = [];
    const logger = { error: (obj: unknown) => logged.push(obj) } as never;
    const catalogue = new Catalogue({ publicBaseUrl: 'http://127.0.0.1:1' });
    watchGraphCatalogue(catalogue, engine, 'main', { sdlOf, logger, sourceName: 'graph' });
    expect(catalogue.entries().map((e) => e.manifest.alias)).toEqual(['graph-person']);
    expect(JSON.stringify(logged)).toContain('_Hidden');
    expect(JSON.stringify(logged)).toContain('TG_OPERATION_NAME_INVALID');
  });

  it('keeps the static catalogue text stable for the same input', () => {
    const source = { record: { name: 'g', path: 'x', source_sha256: 'a'.repeat(64) }, entries: buildCatalogueEntriesStrict(graphqlSource('g', 'type Query { a: Int }')) };
    expect(staticCatalogueText([source])).toBe(staticCatalogueText([source]));
  });
});
