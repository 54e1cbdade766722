import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log/index.ts';

/** A real pino logger (redaction included) whose JSON lines a test reads back. */
export function captureLogger(level = 'trace'): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return { lines, logger: createLogger({ level, destination: stream }) };
}
