import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { processRegistry } from './process-metrics.ts';
import { CountedHistogram, type TallyCell } from './request-tallies.ts';
import { BUDGET_CODES, type Surface } from './surfaces.ts';

/** Seconds: from a cached point read (a few hundred µs) to the query time budget's order. */
const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One surface's recorder: the labelled children of its counter and histogram, one pair per outcome seen. */
export interface SurfaceRecorder {
  /** Counts and times one request; `limit` for a budget refusal. */
  record(outcome: string, seconds: number, limit: string | undefined): void;
}

/** A metric read when Prometheus scrapes: its help, its labels, and how to read each value. */
export interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly labelNames?: readonly string[];
  /** The values now, one per label set (an empty object when the metric has no labels). */
  read(): Iterable<readonly [Record<string, string>, number]>;
}

/**
 * The metrics of one server, in a registry of its own (several servers in one process never share
 * counters); the process's default metrics are appended when scraped. No label carries a graph
 * name, a subject or a token: surfaces, TG_* codes and limit names are fixed sets. The one exception
 * is the opt-in `graph` label of the engine gauges (TOOLGRAPH_METRICS_GRAPH_LABELS).
 */
export class ToolgraphMetrics {
  readonly registry = new Registry();
  /** Every request of every surface: counted and timed without prom-client on the hot path. */
  readonly #requests = new CountedHistogram(
    { name: 'toolgraph_requests_total', help: 'Requests by surface and outcome (ok, a TG_* code, or HTTP_<status> for an answer no service noted)' },
    { name: 'toolgraph_request_duration_seconds', help: 'Request time by surface and outcome, from routing to the last byte written (a stream: until it closes)' },
    LATENCY_BUCKETS,
  );
  readonly #budget: Counter<'surface' | 'code' | 'limit'>;
  readonly #toolCalls: Counter<'outcome'>;
  readonly #toolDurations: Histogram<'outcome'>;
  readonly #recorders = new Map<Surface, SurfaceRecorder>();

  constructor() {
    const registers = [this.registry];
    this.#budget = new Counter({ name: 'toolgraph_budget_refusals_total', help: 'Queries and writes refused or stopped by a budget, by surface, code and the limit the refusal names', labelNames: ['surface', 'code', 'limit'], registers });
    this.#toolCalls = new Counter({ name: 'toolgraph_tool_calls_total', help: 'Tool calls that reached their action (MCP tools/call and REST), by outcome', labelNames: ['outcome'], registers });
    this.#toolDurations = new Histogram({ name: 'toolgraph_tool_call_duration_seconds', help: 'Tool call time by outcome (the action, its downstream calls and token exchange included)', labelNames: ['outcome'], buckets: [...LATENCY_BUCKETS], registers });
  }

  /** The recorder of one surface (made once; its cells are kept per outcome, so a request costs a map read and a bucket search). */
  surface(surface: Surface): SurfaceRecorder {
    let recorder = this.#recorders.get(surface);
    if (recorder === undefined) {
      const cells = new Map<string, TallyCell>();
      const budget = this.#budget;
      const requests = this.#requests;
      recorder = {
        record(outcome, seconds, limit) {
          let cell = cells.get(outcome);
          if (cell === undefined) cells.set(outcome, (cell = requests.cell({ surface, outcome })));
          cell.observe(seconds);
          if (BUDGET_CODES.has(outcome)) budget.labels(surface, outcome, limit ?? 'unknown').inc();
        },
      };
      this.#recorders.set(surface, recorder);
    }
    return recorder;
  }

  /** Counts and times a tool call that reached its action. */
  toolCall(outcome: string, ms: number): void {
    this.#toolCalls.labels(outcome).inc();
    this.#toolDurations.labels(outcome).observe(ms / 1000);
  }

  /** Adds a metric whose values are read from their source at every scrape (a count kept elsewhere, a size). */
  scraped(metric: ScrapedMetric): void {
    const labelNames = [...(metric.labelNames ?? [])];
    const refresh = function (this: Counter | Gauge): void {
      this.reset();
      for (const [labels, value] of metric.read()) {
        if (this instanceof Gauge) this.set(labels, value);
        else this.inc(labels, value);
      }
    };
    const config = { name: metric.name, help: metric.help, labelNames, registers: [this.registry], collect: refresh };
    if (metric.type === 'counter') new Counter(config);
    else new Gauge(config);
  }

  /** The Prometheus text exposition: this server's metrics, then the process's. */
  async scrape(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return `${this.#requests.exposition()}\n\n${own}\n${process}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
