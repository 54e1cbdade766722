export { createGraphService } from './graph-service.ts';
