export { createLogger, silentLogger } from './logger.ts';
export type { Logger } from './logger.ts';
export { scrubString, REDACTED, REDACT_KEYS, rememberSecret, forgetSecrets } from './redaction.ts';
