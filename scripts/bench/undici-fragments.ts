import { Pool } from 'undici';
import type { Leftover, PipelineOptions } from '../../src/manifest/client/pipelined-fragments.ts';

/**
 * The same contract as fetchPipelined (HTTP/1.1 pipelining over `sockets` keep-alive connections,
 * `depth` requests in flight on each, each 200 body of exactly the expected length copied into the
 * document; anything else returned as a leftover for the ordinary path), built on undici's `Pool`
 * with `pipelining` instead of a hand-written client. Kept beside it for the comparison in
 * `npm run bench -- pipelining` (the peer of that comparison; the product does not use it).
 */
export async function fetchPipelinedUndici(options: PipelineOptions): Promise<Leftover[]> {
  const leftovers: Leftover[] = [];
  const sockets = Math.max(1, Math.min(options.sockets, options.count));
  const pool = new Pool(options.origin, { connections: sockets, pipelining: options.depth });
  let next = 0;
  const one = async (index: number, target: string): Promise<void> => {
    try {
      const { statusCode, headers, body } = await pool.request({ path: target, method: 'GET', headers: { accept: 'application/octet-stream' } });
      const expected = options.length(index);
      if (statusCode !== 200 || Number(headers['content-length']) !== expected) {
        await body.dump();
        leftovers.push({ index, attempts: statusCode === 429 || statusCode >= 500 ? 1 : 0, problem: `HTTP ${statusCode}` });
        return;
      }
      let into = options.offset(index);
      for await (const chunk of body as AsyncIterable<Buffer>) {
        chunk.copy(options.document, into);
        into += chunk.length;
      }
      options.onFragment(index);
    } catch (error) {
      leftovers.push({ index, attempts: 0, problem: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
    }
  };
  const worker = async (): Promise<void> => {
    while (next < options.count) {
      const index = next++;
      const target = options.target(index);
      if (target === undefined) leftovers.push({ index, attempts: 0, problem: 'not pipelined' });
      else await one(index, target);
    }
  };
  try {
    await Promise.all(Array.from({ length: sockets * options.depth }, worker));
  } finally {
    await pool.close();
  }
  return leftovers;
}
