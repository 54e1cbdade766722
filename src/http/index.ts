export type { HttpService } from './http-service.ts';
export { sendJson, sendError, readBody, pathOf } from './respond.ts';
export { startHost, createHostHandler, routeOf } from './host.ts';
export type { HostOptions, RunningHost } from './host.ts';
