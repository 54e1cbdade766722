/** The graph the fuzzer attacks: hubs of 10,000 edges each way, a 1 MB string, a node of many properties. */
export const HOSTILE_GRAPH = 'hostile';
export const HUBS = 3;
export const LEAVES = 10_000;
export const BLOB_BYTES = 1_000_000;
export const WIDE_PROPERTIES = 1_000;

/** The body of a POST /dispatch that runs one Cypher statement on the hostile graph. */
export function cypherBody(query: string, params?: Record<string, unknown>): string {
  return JSON.stringify({ id: 1, graph: HOSTILE_GRAPH, method: { Cypher: params === undefined ? { query } : { query, params } } });
}

/** The hostile graph as JSON Lines (the import format). */
export function hostileLines(): string[] {
  const lines: string[] = [];
  for (let h = 0; h < HUBS; h++) {
    lines.push(JSON.stringify({ label: 'Hub', id: `hub-${h}`, props: { name: `hub ${h}`, ...(h === 0 ? { blob: 'b'.repeat(BLOB_BYTES) } : {}) } }));
  }
  for (let l = 0; l < LEAVES; l++) lines.push(JSON.stringify({ label: 'Leaf', id: `leaf-${l}`, props: { n: l, s: `leaf ${l}` } }));
  lines.push(JSON.stringify({ label: 'Wide', id: 'wide-0', props: Object.fromEntries(Array.from({ length: WIDE_PROPERTIES }, (_, i) => [`w${i}`, i])) }));
  for (let h = 0; h < HUBS; h++) {
    for (let l = 0; l < LEAVES; l++) {
      lines.push(JSON.stringify({ src: `hub-${h}`, tgt: `leaf-${l}`, type: 'LINK' }));
      lines.push(JSON.stringify({ src: `leaf-${l}`, tgt: `hub-${h}`, type: 'BACK' }));
    }
  }
  return lines;
}
