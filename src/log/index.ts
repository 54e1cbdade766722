export { createLogger, silentLogger } from './logger.ts';
export type { Logger, CreateLoggerOptions } from './logger.ts';
export { scrubString, scrubValue, REDACTED, REDACT_KEYS, rememberSecret, forgetSecrets, MIN_SECRET_LENGTH } from './redaction.ts';
