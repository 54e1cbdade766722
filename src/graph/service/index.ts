export { createGraphService, DISPATCH_BODY_LIMIT, DISPATCH_PATH } from './graph-service.ts';
export type { GraphServiceOptions } from './graph-service.ts';
export { ACCESS_BODY_LIMIT, ACCESS_ROUTE_PREFIX, handleAccessRoute } from './access-route.ts';
export type { AccessRouteEngine } from './access-route.ts';
export { NAMESPACE_BODY_LIMIT, handleNamespaceRoute } from './namespace-route.ts';
export type { NamespaceRouteEngine } from './namespace-route.ts';
