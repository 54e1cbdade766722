import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { resolveConfig } from '../../../src/config/index.ts';
import { createCarrierAccess, replaceAccessPolicy, restrictionFor, type AccessPolicy, type Predicate } from '../../../src/graph/access/index.ts';
import {
  NONCE_SPACE, REQUEST_ID_SPACE, StoreReplayLedger, loadSignerKeys, signEnvelope, startCarrier, type CarrierAccess, type CarrierGraphs,
  type CarrierOptions, type RunningCarrier, type SignEnvelopeOptions, type SignedEnvelope, type SubscriptionExecutor,
} from '../../../src/graph/carrier/index.ts';
import type { BudgetLimits, QueryBudgetOptions } from '../../../src/graph/budget/index.ts';
import type { GraphEngine, GraphView, MutationInput } from '../../../src/graph/engine/index.ts';
import { createSubscriptionExecutor, type PreparedSubscription } from '../../../src/graph/graphql/index.ts';
import { silentLogger, type Logger } from '../../../src/log/index.ts';
import { MemoryStateStore, type StateStore } from '../../../src/state/index.ts';
import { SseClient } from '../../support/sse-client.ts';
import { openEngine } from '../engine/helpers.ts';

/** A distinctive graph name, so the privacy test can look for it in every log line. */
export const GRAPH = 'zebraGraph42';

/** Ten people (p01..p10), p07 and p08 on team blue (hidden from red), the rest on red, a KNOWS chain, two docs. */
export const SEED: readonly MutationInput[] = [
  ...Array.from({ length: 10 }, (_v, i) => {
    const id = `p${String(i + 1).padStart(2, '0')}`;
    return { op: 'createNode' as const, id, label: 'Person', props: { name: `Person ${i + 1}`, team: i === 6 || i === 7 ? 'blue' : 'red' } };
  }),
  { op: 'createNode', id: 'd1', label: 'Doc', props: { title: 'one', team: 'red' } },
  { op: 'createNode', id: 'd2', label: 'Doc', props: { title: 'two', team: 'blue' } },
  ...Array.from({ length: 9 }, (_v, i) => ({ op: 'addEdge' as const, src: `p${String(i + 1).padStart(2, '0')}`, tgt: `p${String(i + 2).padStart(2, '0')}`, type: 'KNOWS' })),
];

export const PEOPLE = 'subscription { Person(first: 10) { id name } }';

/** Members of a team read the graph and see the people and docs of their teams; other labels are open. */
export const TEAM_ROWS: Predicate = { in: [{ row: 'team' }, { claim: 'groups' }] };
export const CARRIER_POLICY: AccessPolicy = {
  version: 1,
  read: [{ group: 'red' }, { group: 'blue' }, { group: 'purple' }],
  write: [],
  rows: { Person: TEAM_ROWS, Doc: TEAM_ROWS, '*': true },
};

/** The settings' defaults: the carrier's and its executor's list limit and work limit, as `serve` passes them. */
export const DEFAULTS = resolveConfig({ env: { HOME: tmpdir() } }).values;

/** Counts reads of graph rows through the views the carrier takes, to prove refusals read none. */
export class CountingGraphs implements CarrierGraphs {
  reads = 0;
  readonly #engine: GraphEngine;

  constructor(engine: GraphEngine) {
    this.#engine = engine;
  }

  view(graph: string): GraphView {
    return this.#counted(this.#engine.view(graph));
  }

  readNow<T>(graph: string, work: (view: GraphView) => T | Promise<T>): T | Promise<T> {
    return this.#engine.readNow(graph, (view) => work(this.#counted(view)));
  }

  #counted(view: GraphView): GraphView {
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

/**
 * The product's executor (graph/graphql), counted and able to fail on demand: the carrier must be
 * seen to evaluate once per change and group, to read nothing for a refusal, and to end streams
 * whose evaluation throws, which the real executor does only on a fault.
 */
export interface CountingExecutor extends SubscriptionExecutor<CountedPrepared> {
  /** Executor runs so far. */
  runs: number;
  /** When set, runs throw it (an executor fault): runs of `failQuery` only, when that is set too. */
  failWith: Error | undefined;
  failQuery: string | undefined;
}

interface CountedPrepared {
  readonly query: string;
  readonly prepared: PreparedSubscription;
}

/** The product's executor over `engine`, under `limits` (the budget's defaults when omitted) and the default list limit. */
export function countingExecutor(engine: GraphEngine, limits?: BudgetLimits, budget?: QueryBudgetOptions): CountingExecutor {
  const real = createSubscriptionExecutor({ restrict: restrictionFor(engine), listLimit: DEFAULTS.graphqlListLimit, ...(limits ? { limits } : {}), ...(budget ? { budget } : {}) });
  const executor: CountingExecutor = {
    runs: 0,
    failWith: undefined,
    failQuery: undefined,
    prepare: (catalogue, request) => ({ query: request.query, prepared: real.prepare(catalogue, request) }),
    run(view, { query, prepared }, principal) {
      executor.runs++;
      if (executor.failWith && (executor.failQuery === undefined || executor.failQuery === query)) throw executor.failWith;
      return real.run(view, prepared, principal);
    },
  };
  return executor;
}

export interface CarrierFixture {
  readonly engine: GraphEngine;
  readonly carrier: RunningCarrier;
  readonly graphs: CountingGraphs;
  readonly executor: CountingExecutor;
  /** The state store the carrier's nonce and request-id ledgers live in, as `serve` wires them. */
  readonly state: StateStore;
  readonly privateKey: CryptoKey;
  readonly jwksPath: string;
  sign(overrides?: Partial<SignEnvelopeOptions>): Promise<SignedEnvelope>;
  /** Opens a subscription with a signed envelope; `extra` headers override. */
  subscribe(signed: SignedEnvelope, extra?: { path?: string; headers?: Record<string, string | string[]>; method?: string }): Promise<SseClient>;
  commit(...mutations: MutationInput[]): Promise<void>;
  /** Replaces the graph's access policy (one batch, as PUT /graphs/{graph}/access does). */
  setPolicy(policy: AccessPolicy): Promise<void>;
  close(): Promise<void>;
}

export async function generateSigner(kid = 'signer-1'): Promise<{ privateKey: CryptoKey; jwks: { keys: object[] } }> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return { privateKey, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' }] } };
}

export type FixtureOptions = Partial<Omit<CarrierOptions, 'graphs' | 'executor' | 'access' | 'signerKeys' | 'ledgers'>> & {
  logger?: Logger;
  /** The execution budget of the executor's runs (the queries' defaults when omitted), and its options (an overload signal of the test's own). */
  budget?: BudgetLimits;
  budgetOptions?: QueryBudgetOptions;
  /** Wraps the access module's port (graph/access), for a test of the port contract beyond what the module does. */
  access?: (real: CarrierAccess) => CarrierAccess;
  /**
   * Where consumed nonces and request ids go: the state store, as `serve` wires them (the default),
   * or the carrier's own in-process ledgers, what it uses when given no store.
   */
  ledgers?: 'state-store' | 'in-process';
};

/**
 * The carrier as `serve` starts it: the real listener, the GraphQL surface's executor reading through
 * the access module's row-level security, the access module's ACL and visibility keys over the
 * graph's stored policy (CARRIER_POLICY), and nonces and request ids in a state store.
 */
export async function startFixture(options: FixtureOptions = {}): Promise<CarrierFixture> {
  const engine = await openEngine();
  await engine.createGraph(GRAPH);
  await engine.commit({ graph: GRAPH, mutations: SEED });
  await replaceAccessPolicy(engine, GRAPH, CARRIER_POLICY);
  const { privateKey, jwks } = await generateSigner();
  const dir = mkdtempSync(join(tmpdir(), 'tg-carrier-'));
  const jwksPath = join(dir, 'jwks.json');
  writeFileSync(jwksPath, JSON.stringify(jwks));
  const graphs = new CountingGraphs(engine);
  const { access: wrapAccess, ledgers = 'state-store', budget, budgetOptions, ...carrierOptions } = options;
  const executor = countingExecutor(engine, budget, budgetOptions);
  const realAccess = createCarrierAccess(engine);
  const state = new MemoryStateStore();
  const carrier = await startCarrier({
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    maxConnections: 128,
    maxSessionSecs: 300,
    listLimit: DEFAULTS.graphqlListLimit,
    maxWork: DEFAULTS.carrierMaxWork,
    ...carrierOptions,
    graphs,
    executor,
    access: wrapAccess ? wrapAccess(realAccess) : realAccess,
    signerKeys: await loadSignerKeys(jwksPath),
    ...(ledgers === 'state-store' ? {
      ledgers: {
        nonces: new StoreReplayLedger(state, NONCE_SPACE, options.nonceCapacity),
        requestIds: new StoreReplayLedger(state, REQUEST_ID_SPACE, options.nonceCapacity),
      },
    } : {}),
  });
  const clients = new Set<SseClient>();
  return {
    engine, carrier, graphs, executor, state, privateKey, jwksPath,
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
    async setPolicy(policy) {
      await replaceAccessPolicy(engine, GRAPH, policy);
    },
    async close() {
      for (const client of clients) client.close();
      await carrier.close();
      await state.close();
      await engine.close();
    },
  };
}
