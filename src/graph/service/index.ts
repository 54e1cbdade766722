export { createGraphService, DISPATCH_BODY_LIMIT, DISPATCH_PATH } from './graph-service.ts';
export type { GraphServiceOptions } from './graph-service.ts';
