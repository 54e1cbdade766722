export { startToolgraph } from './start-toolgraph.ts';
export type { StartOptions, RunningToolgraph } from './start-toolgraph.ts';
export { SERVICE_FACTORIES, parseServiceNames } from './service-factories.ts';
export type { ServiceName, ServiceFactory, ServiceContext, StartedServices } from './service-factories.ts';
