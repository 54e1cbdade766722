export { startToolgraph } from './start-toolgraph.ts';
export type { RunningToolgraph } from './start-toolgraph.ts';
export { parseServiceNames } from './service-names.ts';
export type { ServiceName } from './service-names.ts';
export { openGraphEngine, isFreshStore } from './open-graph-engine.ts';
export { startStdioToolServer } from './stdio-tool-server.ts';
export { productCarrierPorts } from './carrier-ports.ts';
export { principalResolverFor } from './local-principal.ts';
