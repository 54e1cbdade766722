import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import {
  loadSignerKeys, signEnvelope, startCarrier, type CarrierGraphs, type CarrierOptions, type RunningCarrier, type SignEnvelopeOptions,
  type SignedEnvelope,
} from '../../../src/graph/carrier/index.ts';
import type { GraphEngine, GraphView, MutationInput } from '../../../src/graph/engine/index.ts';
import { silentLogger, type Logger } from '../../../src/log/index.ts';
import { TestAccess } from '../../support/carrier-access.ts';
import { SseClient } from '../../support/sse-client.ts';
import { createTestExecutor, teamRowsOf, type TestExecutor } from '../../support/subscription-executor.ts';
import { openEngine } from '../engine/helpers.ts';

/** A distinctive graph name, so the privacy test can look for it in every log line. */
export const GRAPH = 'zebraGraph42';

/** Ten people (p01..p10), p07 and p08 on team blue (hidden from red), a KNOWS chain, two docs. */
export const SEED: readonly MutationInput[] = [
  ...Array.from({ length: 10 }, (_v, i) => {
    const id = `p${String(i + 1).padStart(2, '0')}`;
    return { op: 'createNode' as const, id, label: 'Person', props: { name: `Person ${i + 1}`, ...(i === 6 || i === 7 ? { team: 'blue' } : {}) } };
  }),
  { op: 'createNode', id: 'd1', label: 'Doc', props: { title: 'one', team: 'red' } },
  { op: 'createNode', id: 'd2', label: 'Doc', props: { title: 'two', team: 'blue' } },
  ...Array.from({ length: 9 }, (_v, i) => ({ op: 'addEdge' as const, src: `p${String(i + 1).padStart(2, '0')}`, tgt: `p${String(i + 2).padStart(2, '0')}`, type: 'KNOWS' })),
];

export const PEOPLE = 'subscription { Person(first: 10) { id name } }';

/** Counts reads of graph rows through the views the carrier takes, to prove refusals read none. */
export class CountingGraphs implements CarrierGraphs {
  reads = 0;
  readonly #engine: GraphEngine;

  constructor(engine: GraphEngine) {
    this.#engine = engine;
  }

  view(graph: string): GraphView {
    const view = this.#engine.view(graph);
    const rowReads = new Set(['node', 'scan', 'count', 'expand', 'expandEach', 'edges', 'allNodes', 'allEdges']);
    return new Proxy(view, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof property === 'string' && rowReads.has(property) && typeof value === 'function') {
          return (...args: unknown[]) => {
            this.reads++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return value;
      },
    });
  }

  subscribe(listener: Parameters<GraphEngine['subscribe']>[0]): () => void {
    return this.#engine.subscribe(listener);
  }
}

export interface CarrierFixture {
  readonly engine: GraphEngine;
  readonly carrier: RunningCarrier;
  readonly graphs: CountingGraphs;
  readonly executor: TestExecutor;
  readonly access: TestAccess;
  readonly privateKey: CryptoKey;
  readonly jwksPath: string;
  sign(overrides?: Partial<SignEnvelopeOptions>): Promise<SignedEnvelope>;
  /** Opens a subscription with a signed envelope; `extra` headers override. */
  subscribe(signed: SignedEnvelope, extra?: { path?: string; headers?: Record<string, string | string[]>; method?: string }): Promise<SseClient>;
  commit(...mutations: MutationInput[]): Promise<void>;
  close(): Promise<void>;
}

export async function generateSigner(kid = 'signer-1'): Promise<{ privateKey: CryptoKey; jwks: { keys: object[] } }> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return { privateKey, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' }] } };
}

export async function startFixture(options: Partial<Omit<CarrierOptions, 'graphs' | 'executor' | 'access' | 'signerKeys'>> & { access?: TestAccess; logger?: Logger } = {}): Promise<CarrierFixture> {
  const engine = await openEngine();
  await engine.createGraph(GRAPH);
  await engine.commit({ graph: GRAPH, mutations: SEED });
  const { privateKey, jwks } = await generateSigner();
  const dir = mkdtempSync(join(tmpdir(), 'tg-carrier-'));
  const jwksPath = join(dir, 'jwks.json');
  writeFileSync(jwksPath, JSON.stringify(jwks));
  const graphs = new CountingGraphs(engine);
  const access = options.access ?? new TestAccess();
  const executor = createTestExecutor({ visible: teamRowsOf(access) });
  const carrier = await startCarrier({
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    maxConnections: 128,
    maxSessionSecs: 300,
    ...options,
    graphs,
    executor,
    access,
    signerKeys: await loadSignerKeys(jwksPath),
  });
  const clients = new Set<SseClient>();
  return {
    engine, carrier, graphs, executor, access, privateKey, jwksPath,
    sign: (overrides = {}) => signEnvelope({
      key: privateKey, alg: 'EdDSA', kid: 'signer-1', graph: GRAPH, query: PEOPLE, subject: 'ada', scopes: ['kg:read'], groups: ['red'], ...overrides,
    }),
    async subscribe(signed, extra = {}) {
      const client = new SseClient(carrier.origin, extra.path ?? signed.path, { ...signed.headers, ...extra.headers }, extra.method);
      clients.add(client);
      void client.done.then(() => clients.delete(client));
      return client.opened();
    },
    async commit(...mutations) {
      await engine.commit({ graph: GRAPH, mutations });
    },
    async close() {
      for (const client of clients) client.close();
      await carrier.close();
      await engine.close();
    },
  };
}
