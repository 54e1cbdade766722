import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { GraphEngine } from '../../src/graph/engine/index.ts';
import { loadReferenceGraph } from '../../src/graph/fixtures/index.ts';
import { replaceNamespace, sdlFromCatalogue } from '../../src/graph/schema/index.ts';
import { createGraphService } from '../../src/graph/service/index.ts';
import { startHost, type RunningHost } from '../../src/http/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import {
  buildCatalogueEntries, CatalogueSearch, createStaticCatalogue, graphqlSource, watchGraphCatalogues, type Catalogue, type GraphCatalogueWatch,
} from '../../src/manifest/index.ts';
import { openEngine } from '../graph/engine/helpers.ts';

/** The catalogue `serve` builds, watching every graph of an engine holding the reference graph as demo. */
async function served(): Promise<{ engine: GraphEngine; catalogue: Catalogue; watch: GraphCatalogueWatch; events: string[] }> {
  const engine = await openEngine();
  await loadReferenceGraph(engine, 'demo');
  const catalogue = createStaticCatalogue({ publicBaseUrl: 'http://127.0.0.1:1' });
  const watch = watchGraphCatalogues(catalogue, engine, { sdlOf: sdlFromCatalogue, sourceNameOf: (g) => (g === 'demo' ? 'graph' : undefined) });
  // Every rebuild ends in one putSource (or removeSource): record them among the other events.
  const events: string[] = [];
  const put = catalogue.putSource.bind(catalogue);
  catalogue.putSource = (name, entries) => {
    events.push(`rebuild ${name}`);
    put(name, entries);
  };
  const remove = catalogue.removeSource.bind(catalogue);
  catalogue.removeSource = (name) => {
    events.push(`remove ${name}`);
    return remove(name);
  };
  return { engine, catalogue, watch, events };
}

const operations = (catalogue: Catalogue, query: string) => catalogue.search(query, 5).map((r) => r.manifest.operation);

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('watchGraphCatalogues: rebuilds off the commit path', () => {
  it('a burst of label-adding commits causes one rebuild, after every commit has returned', async () => {
    const { engine, catalogue, watch, events } = await served();
    cleanup.push(async () => watch.close(), () => engine.close());
    for (let i = 0; i < 5; i++) {
      await engine.commit({ graph: 'demo', mutations: [{ op: 'createNode', id: `s${i}`, label: `Ship${i}` }] });
      events.push(`commit ${i}`);
    }
    expect(operations(catalogue, 'Ship3')).not.toContain('Ship3');
    await watch.settled();
    expect(events).toEqual(['commit 0', 'commit 1', 'commit 2', 'commit 3', 'commit 4', 'rebuild graph']);
    expect(operations(catalogue, 'Ship3')[0]).toBe('Ship3');
  });

  it('the HTTP answer to a label-adding CREATE is sent before the rebuild starts', async () => {
    const { engine, catalogue, watch, events } = await served();
    const service = createGraphService({ engine, logger: silentLogger(), resolvePrincipal: async () => ({ subject: 'test', scopes: ['*'] }) });
    const host: RunningHost = await startHost({
      services: [{
        ...service,
        handle: (req, res: ServerResponse) => {
          const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
          res.end = ((...args: unknown[]) => {
            events.push('response');
            return end(...args);
          }) as typeof res.end;
          return service.handle(req, res);
        },
      }],
      logger: silentLogger(),
      host: '127.0.0.1',
      port: 0,
    });
    cleanup.push(async () => watch.close(), () => engine.close(), () => host.close());
    const response = await fetch(`${host.origin}/dispatch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, graph: 'demo', method: { Cypher: { query: "CREATE (s:Spaceship {id: 'ship-1'}) RETURN s.id" } } }),
    });
    expect(((await response.json()) as { result?: unknown }).result).toBeDefined();
    await watch.settled();
    expect(events).toEqual(['response', 'rebuild graph']);
    expect(operations(catalogue, 'Spaceship')[0]).toBe('Spaceship');
  });

  it('follows graphs as they are created, dropped and created again', async () => {
    const { engine, catalogue, watch, events } = await served();
    cleanup.push(async () => watch.close(), () => engine.close());
    await engine.createGraph('other');
    await engine.commit({ graph: 'other', mutations: [{ op: 'createNode', id: 'r1', label: 'Rocket' }] });
    await watch.settled();
    expect(catalogue.sourceNames()).toContain('graph-other');
    expect(operations(catalogue, 'Rocket')[0]).toBe('Rocket');
    await engine.dropGraph('other');
    await watch.settled();
    expect(catalogue.sourceNames()).not.toContain('graph-other');
    await engine.createGraph('other');
    await engine.commit({ graph: 'other', mutations: [{ op: 'createNode', id: 'b1', label: 'Balloon' }] });
    await watch.settled();
    expect(operations(catalogue, 'Balloon')[0]).toBe('Balloon');
    expect(operations(catalogue, 'Rocket')).not.toContain('Rocket');
    expect(events).toEqual(['rebuild graph-other', 'remove graph-other', 'rebuild graph-other']);
  });

  it('rebuilds a graph\'s manifests when its namespace is set: every operation takes the prefixed name', async () => {
    const { engine, catalogue, watch, events } = await served();
    cleanup.push(async () => watch.close(), () => engine.close());
    await watch.settled();
    const plain = catalogue.entries().filter((e) => e.source === 'graph').map((e) => e.manifest.operation);
    expect(plain).toContain('Person');
    expect(plain).toContain('createNode');
    events.length = 0;
    await replaceNamespace(engine, 'demo', 'crm');
    await watch.settled();
    expect(events).toEqual(['rebuild graph']);
    const namespaced = catalogue.entries().filter((e) => e.source === 'graph').map((e) => e.manifest.operation);
    expect(namespaced.length).toBe(plain.length);
    expect(namespaced.filter((name) => !name.startsWith('crm_'))).toEqual([]);
    expect(namespaced).toEqual(expect.arrayContaining(['crm_Person', 'crm_PersonConnection', 'crm_createNode']));
    for (const name of namespaced) expect(name).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
  });

  it('settled() resolves at once with nothing pending, and close() releases a waiter without rebuilding', async () => {
    const { engine, watch, events } = await served();
    cleanup.push(() => engine.close());
    await watch.settled();
    await engine.commit({ graph: 'demo', mutations: [{ op: 'createNode', id: 'x', label: 'Late' }] });
    const waiting = watch.settled();
    watch.close();
    await waiting;
    expect(events).toEqual([]);
  });
});

describe('CatalogueSearch.update: only what changed', () => {
  it('adding a label to the demo graph re-indexes a few documents, and searches as a fresh index does', async () => {
    const engine = await openEngine();
    cleanup.push(() => engine.close());
    await loadReferenceGraph(engine, 'demo');
    const before = buildCatalogueEntries(graphqlSource('graph', sdlFromCatalogue(engine.view('demo').catalogue))).entries;
    await engine.commit({ graph: 'demo', mutations: [{ op: 'createNode', id: 's', label: 'Spaceship', props: { name: 'Heart of Gold' } }] });
    const after = buildCatalogueEntries(graphqlSource('graph', sdlFromCatalogue(engine.view('demo').catalogue))).entries;

    const search = new CatalogueSearch(before);
    const update = search.update(before, after);
    // Two new operations (Spaceship, SpaceshipConnection); createNode and updateNode list one more
    // field (re-indexed); the other 15 documents stay as they are.
    expect(update).toEqual({ added: 4, removed: 2 });
    expect(search.size).toBe(after.length);
    const fresh = new CatalogueSearch(after);
    for (const query of ['Spaceship', 'person connection', 'organization', 'name', 'documnt']) {
      const mine = search.search(query, 20);
      const theirs = fresh.search(query, 20);
      expect(mine.map((h) => h.entry)).toEqual(theirs.map((h) => h.entry));
      mine.forEach((hit, i) => {
        expect(hit.score).toBeCloseTo(theirs[i]!.score, 9);
      });
    }
  });
});
