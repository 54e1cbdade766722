import type { ToolgraphMetrics } from './toolgraph-metrics.ts';

/** What the carrier gauges read (src/graph/carrier RunningCarrier.stats). */
export interface CarrierReadings {
  readonly sessions: number;
  readonly opened: number;
  readonly frames: number;
  readonly connections: number;
  readonly evaluations: number;
  readonly work: number;
}

/** The subscription carrier's sessions, connections, frames, evaluations and work, read at scrape time. */
export function addCarrierGauges(metrics: ToolgraphMetrics, read: () => CarrierReadings): void {
  metrics.scraped({ name: 'toolgraph_carrier_sessions', help: 'Open carrier subscription streams', type: 'gauge', read: () => [[{}, read().sessions]] });
  metrics.scraped({ name: 'toolgraph_carrier_connections', help: 'Carrier connections within its cap (idle ones and handshakes included)', type: 'gauge', read: () => [[{}, read().connections]] });
  metrics.scraped({ name: 'toolgraph_carrier_sessions_opened_total', help: 'Carrier subscription streams opened', type: 'counter', read: () => [[{}, read().opened]] });
  metrics.scraped({ name: 'toolgraph_carrier_frames_total', help: 'Frames sent on carrier streams (results and keepalives)', type: 'counter', read: () => [[{}, read().frames]] });
  metrics.scraped({ name: 'toolgraph_carrier_evaluations_total', help: 'Subscription evaluations the carrier ran (one per group a commit touched, and per new group)', type: 'counter', read: () => [[{}, read().evaluations]] });
  metrics.scraped({ name: 'toolgraph_carrier_work', help: 'Summed complexity of the carrier\'s running subscription groups: the most result values one commit can cost (capped by TOOLGRAPH_CARRIER_MAX_WORK)', type: 'gauge', read: () => [[{}, read().work]] });
}
