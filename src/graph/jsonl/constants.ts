/** The JSON Lines area's named constants, importable without loading the engine (the CLI's help reads them). */

/**
 * Mutations per batch on import: big enough to be fast, small enough to show progress and bound memory.
 * A batch ends earlier when the next record would take it over the engine's write caps.
 */
export const IMPORT_BATCH_SIZE = 5000;
