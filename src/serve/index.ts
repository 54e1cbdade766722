export { startToolgraph } from './start-toolgraph.ts';
export type { StartOptions, RunningToolgraph } from './start-toolgraph.ts';
export { SERVICE_NAMES, parseServiceNames } from './service-names.ts';
export type { ServiceName } from './service-names.ts';
export { openGraphEngine, DEMO_GRAPH } from './open-graph-engine.ts';
export type { EngineSettings } from './open-graph-engine.ts';
