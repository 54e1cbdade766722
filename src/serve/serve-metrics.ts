import type { IncomingMessage } from 'node:http';
import type { ResolvedValues } from '../config/index.ts';
import { ADMIN_SCOPES } from '../graph/access/index.ts';
import type { CarrierOptions, RunningCarrier } from '../graph/carrier/index.ts';
import type { HttpService } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import {
  addCarrierGauges, addDelegationCounters, addEngineGauges, addVerifiedTokenCounters, createMetricsService, instrumentService, startMetricsListener,
  ToolgraphMetrics, type EngineReadings, type MetricsListener, type Surface, type SurfaceOf,
} from '../observability/metrics/index.ts';
import { requireScope, type Principal } from '../principal/index.ts';
import type { ServeBearerAuth } from './bearer-auth.ts';
import type { ToolService } from './tool-service.ts';

type MetricsSettings = Pick<ResolvedValues, 'metrics' | 'metricsListen' | 'metricsGraphLabels'>;

/** The graph service answers /dispatch and the admin routes under /graphs. */
const graphSurface = (path: string): Surface => (path === '/dispatch' ? 'dispatch' : 'admin');

/** The surface of each mounted service by name; services not named here (the sign-in routes) are `auth`. */
const SURFACE_OF: Readonly<Record<string, SurfaceOf>> = { graph: graphSurface, graphql: 'graphql', catalogue: 'catalogue', tools: 'tools' };

/**
 * `serve`'s metrics (README "Metrics"): one registry for this server, the /metrics route (kg:admin
 * under token auth), the optional loopback listener, and the hooks the composition root attaches to
 * what it starts. Every method is a no-op target the root calls once.
 */
export class ServeMetrics {
  readonly metrics = new ToolgraphMetrics();
  readonly #values: MetricsSettings;
  #listener: MetricsListener | undefined;

  constructor(values: MetricsSettings) {
    this.#values = values;
  }

  /** The /metrics route; kg:admin (or `*`) under token auth, open with AUTH_TYPE=none like every route. */
  service(resolvePrincipal: (req: IncomingMessage) => Promise<Principal>): HttpService {
    return createMetricsService(this.metrics, async (req) => requireScope(await resolvePrincipal(req), ADMIN_SCOPES, 'Reading /metrics'));
  }

  /** Every service but /metrics itself, counted and timed by surface. */
  instrument(services: readonly HttpService[]): HttpService[] {
    return services.map((service) => (service.name === 'metrics' ? service : instrumentService(service, SURFACE_OF[service.name] ?? 'auth', this.metrics)));
  }

  watchEngine(engine: EngineReadings): void {
    addEngineGauges(this.metrics, engine, this.#values.metricsGraphLabels);
  }

  watchAuth(auth: ServeBearerAuth): void {
    addVerifiedTokenCounters(this.metrics, () => auth.tokenCacheStats());
  }

  watchTools(tools: Pick<ToolService, 'registry' | 'credentials'>): void {
    tools.registry.observe((outcome, ms) => this.metrics.toolCall(outcome, ms));
    addDelegationCounters(this.metrics, () => tools.credentials.stats);
  }

  /** The carrier's handshake hook (its requests under surface `carrier`). */
  readonly carrierHandshake: NonNullable<CarrierOptions['onHandshake']> = (() => {
    const recorder = this.metrics.surface('carrier');
    return (outcome: string, ms: number, limit: string | undefined) => recorder.record(outcome, ms / 1000, limit);
  })();

  watchCarrier(carrier: RunningCarrier): void {
    addCarrierGauges(this.metrics, () => carrier.stats());
  }

  /** Starts the loopback listener when TOOLGRAPH_METRICS_LISTEN is set; answers its origin. */
  async listen(logger: Logger): Promise<string | undefined> {
    const address = this.#values.metricsListen;
    if (address === undefined) return undefined;
    this.#listener = await startMetricsListener(address, this.metrics, logger);
    return this.#listener.origin;
  }

  async close(): Promise<void> {
    await this.#listener?.close();
  }
}

/** The metrics of `serve`, or undefined with TOOLGRAPH_METRICS=false. */
export function openServeMetrics(values: MetricsSettings): ServeMetrics | undefined {
  return values.metrics ? new ServeMetrics(values) : undefined;
}
