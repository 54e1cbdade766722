import type { IncomingMessage } from 'node:http';

/**
 * How many times the request carries the header `name` (lower case). `req.headers` cannot tell:
 * Node keeps only the first of a repeated `authorization` (and of a few others) and joins the rest,
 * so a header that must appear once is counted on the raw list.
 */
export function headerCount(req: IncomingMessage, name: string): number {
  const raw = req.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const header = raw[i]!;
    if (header.length === name.length && header.toLowerCase() === name) count++;
  }
  return count;
}
