import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { REDACTED, scrubString, scrubValue } from './scrub.ts';

export type { Logger } from 'pino';

/**
 * Paths pino removes before serialising. Headers are never logged whole; these catch the places a
 * credential could still travel (error details, token-exchange responses, store logins).
 */
export const REDACT_PATHS: readonly string[] = [
  'authorization', '*.authorization', '*.*.authorization', 'req.headers.authorization', 'headers.authorization',
  'token', '*.token', 'access_token', '*.access_token', 'refresh_token', '*.refresh_token', 'id_token', '*.id_token',
  'subject_token', '*.subject_token', 'client_secret', '*.client_secret', 'clientSecret', '*.clientSecret',
  'jwt', '*.jwt', 'password', '*.password', 'secret', '*.secret', 'secret_id', '*.secret_id', 'client_token', '*.client_token',
  'envelope', '*.envelope', 'query', '*.query', 'graph', '*.graph',
];

export interface CreateLoggerOptions {
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
  name?: string;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    base: { service: options.name ?? 'toolgraph' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => scrubValue(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubString(arg) : arg)) as Parameters<typeof method>;
        method.apply(this, scrubbed);
      },
    },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}

/** A logger that writes nothing, for library use and tests that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
