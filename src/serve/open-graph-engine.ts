import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedValues } from '../config/index.ts';
import { GraphEngine } from '../graph/engine/index.ts';
import { openPersistence } from '../graph/persist/open.ts';
import type { Logger } from '../log/index.ts';
import { writeLimitsOf } from './budget-limits.ts';
import { DEMO_GRAPH } from './constants.ts';
import { schemaCapsOf, type SchemaCapSettings } from './schema-caps.ts';

export { DEMO_GRAPH };

/**
 * Where the graphs are kept, the write caps and the schema caps (their defaults when left out);
 * `acceptDataLoss` (TOOLGRAPH_ACCEPT_DATA_LOSS) is false and `databaseSchema` is `public` when left out.
 */
export type EngineSettings = Pick<ResolvedValues, 'persistence' | 'dataDir' | 'databaseUrl'> & Partial<Pick<ResolvedValues, 'acceptDataLoss' | 'databaseSchema' | 'writeMaxChanges' | 'writeMaxBatchBytes'>> & Partial<SchemaCapSettings>;

export interface OpenGraphEngineOptions {
  /** Seed the reference graph as `demo` into a fresh store. Only `serve` does; CLI commands never seed. */
  readonly seed?: boolean;
}

/**
 * Whether the configured store is fresh, i.e. has never stored a record. For `file`: the data dir is
 * missing or none of its files holds a byte, the lock aside (an empty log segment is what opening
 * leaves behind, e.g. `graph list` on a new machine; a dropped graph leaves its drop record, so dropping
 * `demo` is final). For `memory`: always. For `postgres` it is known only once open (a database with no
 * graph), so this answers false.
 */
export function isFreshStore(values: EngineSettings): boolean {
  if (values.persistence === 'memory') return true;
  if (values.persistence !== 'file') return false;
  const dataDir = join(values.dataDir, 'graphs');
  if (!existsSync(dataDir)) return true;
  return readdirSync(dataDir).every((name) => name === 'LOCK' || (statSync(join(dataDir, name), { throwIfNoEntry: false })?.size ?? 0) === 0);
}

/**
 * Opens the engine on the configured persistence. With `seed`, a fresh store (see isFreshStore; for
 * `postgres`, a database with no graph) gets the reference graph as `demo`.
 */
export async function openGraphEngine(values: EngineSettings, logger: Logger, options: OpenGraphEngineOptions = {}): Promise<GraphEngine> {
  const fresh = isFreshStore(values);
  const persistence = await openPersistence({
    kind: values.persistence,
    dataDir: join(values.dataDir, 'graphs'),
    ...(values.databaseUrl ? { databaseUrl: values.databaseUrl } : {}),
    ...(values.databaseSchema ? { schema: values.databaseSchema } : {}),
    ...(values.acceptDataLoss ? { acceptDataLoss: true } : {}),
    logger,
  });
  let engine: GraphEngine;
  try {
    // Every client batch (Cypher, GraphQL mutations, imports) is capped by the write_* settings.
    engine = await GraphEngine.open({ persistence, logger, writeLimits: writeLimitsOf(values), ...(hasSchemaCaps(values) ? { schemaCaps: schemaCapsOf(values) } : {}) });
  } catch (error) {
    // A store that refuses to load (lost or damaged records) must not keep its lock: the operator's
    // next try may come from this same process (the CLI in tests, a supervisor in-process).
    await persistence.close().catch(() => undefined);
    throw error;
  }
  if (!options.seed) return engine;
  try {
    if ((fresh || values.persistence === 'postgres') && engine.listGraphs().length === 0) {
      // Loaded only to seed, so CLI commands (which never seed) do not pay for the fixtures and policies.
      const [{ loadReferenceGraph }, { OPEN_POLICY, replaceAccessPolicy }] = await Promise.all([import('../graph/fixtures/index.ts'), import('../graph/access/index.ts')]);
      await loadReferenceGraph(engine, DEMO_GRAPH);
      // Open, so the tour works with real tokens too: anyone signed in reads it, kg:write writes.
      await replaceAccessPolicy(engine, DEMO_GRAPH, OPEN_POLICY);
      logger.info({ graphs: 1 }, 'seeded the reference graph on a fresh store');
    }
  } catch (error) {
    // Another instance on the same PostgreSQL database may seed at the same moment.
    if ((error as { code?: string }).code !== 'TG_GRAPH_EXISTS') {
      await engine.close();
      throw error;
    }
  }
  return engine;
}

function hasSchemaCaps(values: EngineSettings): values is EngineSettings & SchemaCapSettings {
  return values.graphMaxLabels !== undefined && values.graphMaxEdgeTypes !== undefined && values.graphMaxPropertiesPerLabel !== undefined
    && values.graphMaxSchemaFields !== undefined && values.graphMaxNameLength !== undefined;
}
