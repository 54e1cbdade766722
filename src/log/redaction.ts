/**
 * The redaction half of the log area (scrubbing text and values, remembering secrets), without the
 * logger: importing it does not load pino, so settings and the CLI's light paths can use it.
 */
export { scrubString, REDACTED, REDACT_KEYS } from './scrub.ts';
export { rememberSecret, forgetSecrets } from './known-secrets.ts';
