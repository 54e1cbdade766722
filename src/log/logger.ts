import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { scrubString, scrubValue } from './scrub.ts';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
  name?: string;
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? 'info',
    base: { service: options.name ?? 'toolgraph' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      // One pass does the redaction (REDACT_KEYS at any depth, known secrets, bearer values, JWTs).
      log: (object) => scrubValue(object) as Record<string, unknown>,
      bindings: (bindings) => scrubValue(bindings) as Record<string, unknown>,
    },
    // Errors are already serialised by scrubValue (type kept); pino's serializer would rename them "Object".
    serializers: { err: (value: unknown) => value },
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
