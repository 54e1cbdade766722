/**
 * The redaction half of the log area (scrubbing text and values, remembering secrets), without the
 * logger: importing it does not load pino, so settings and the CLI's light paths can use it.
 */
export { scrubString, scrubValue, REDACTED, REDACT_KEYS } from './scrub.ts';
export { rememberSecret, forgetSecrets, MIN_SECRET_LENGTH } from './known-secrets.ts';
