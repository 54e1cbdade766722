/** The auth area's named constants, importable without loading jose or openid-client (the CLI's help reads them). */

/** The spec's callback port for the loopback flow. */
export const DEFAULT_CALLBACK_PORT = 56121;
