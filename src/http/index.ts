export type { HttpService } from './http-service.ts';
export { sendJson, sendError, readBody, pathOf } from './respond.ts';
export { headerCount } from './header-count.ts';
export type { BodyOverflow } from './respond.ts';
export { startHost, createHostHandler, routeOf, DEFAULT_GRACE_MS } from './host.ts';
export type { CloseOptions, HostOptions, RunningHost } from './host.ts';
