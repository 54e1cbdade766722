/**
 * The store half of the serve area: opening the configured graph store as `serve` does, and the
 * query budget from the settings, without loading any service (CLI commands that work on the store
 * import this instead of index.ts, which loads every service).
 */
export { openGraphEngine } from './open-graph-engine.ts';
export { budgetLimitsOf, writeLimitsOf } from './budget-limits.ts';
