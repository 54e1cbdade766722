export { createLogger, silentLogger, REDACT_PATHS } from './logger.ts';
export type { Logger, CreateLoggerOptions } from './logger.ts';
export { scrubString, scrubValue, REDACTED } from './scrub.ts';
