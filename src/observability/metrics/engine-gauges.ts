import type { ToolgraphMetrics } from './toolgraph-metrics.ts';

/** What the engine gauges read: the graphs' sizes and versions, and what the follower applied. */
export interface EngineReadings {
  listGraphs(): readonly { readonly name: string; readonly nodes: number; readonly edges: number; readonly version: number }[];
  /** Undefined when this instance follows no other (any persistence but PostgreSQL). */
  readonly followStats: { readonly records: number; readonly lastLagMs: number } | undefined;
}

type Field = 'nodes' | 'edges' | 'version';

/**
 * `toolgraph_graphs` and, per graph, nodes, edges and version, read at scrape time. A graph's name
 * is a label only when the operator opts in (`graphLabels`, TOOLGRAPH_METRICS_GRAPH_LABELS): names
 * can say what a tenant stores, and the spec keeps them out of the carrier's logs. Without it each
 * gauge is the sum over the graphs (the version sum rises by one per committed batch). With a
 * follower (PostgreSQL), its lag and the records it applied.
 */
export function addEngineGauges(metrics: ToolgraphMetrics, engine: EngineReadings, graphLabels: boolean): void {
  metrics.scraped({ name: 'toolgraph_graphs', help: 'Graphs in the engine', type: 'gauge', read: () => [[{}, engine.listGraphs().length]] });
  const help: Record<Field, string> = {
    nodes: 'Nodes',
    edges: 'Edges',
    version: 'Graph version (one per committed batch)',
  };
  for (const field of ['nodes', 'edges', 'version'] as const) {
    metrics.scraped({
      name: `toolgraph_graph_${field}`,
      help: graphLabels ? `${help[field]} per graph` : `${help[field]}, summed over every graph (per graph with TOOLGRAPH_METRICS_GRAPH_LABELS=true)`,
      type: 'gauge',
      ...(graphLabels ? { labelNames: ['graph'] } : {}),
      read: () => {
        const graphs = engine.listGraphs();
        if (graphLabels) return graphs.map((g) => [{ graph: g.name }, g[field]] as const);
        let sum = 0;
        for (const g of graphs) sum += g[field];
        return [[{}, sum]];
      },
    });
  }
  if (engine.followStats === undefined) return;
  metrics.scraped({ name: 'toolgraph_follower_lag_seconds', help: 'PostgreSQL follower: seconds from the commit of the last record another instance wrote to its being applied here (their clocks)', type: 'gauge', read: () => [[{}, (engine.followStats?.lastLagMs ?? 0) / 1000]] });
  metrics.scraped({ name: 'toolgraph_follower_records_total', help: 'PostgreSQL follower: records other instances committed, applied here', type: 'counter', read: () => [[{}, engine.followStats?.records ?? 0]] });
}
