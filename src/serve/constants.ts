/**
 * The serve area's named constants, importable without loading any service (the CLI's help and
 * argument defaults read them before deciding what to load).
 */
export { SERVICE_NAMES } from './service-names.ts';

/** The graph `serve` creates from specs/fixtures/ on a fresh store, so a first start serves something real. */
export const DEMO_GRAPH = 'demo';
