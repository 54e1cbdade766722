// Bounded maps benchmark: node scripts/bench/bounded-maps.ts [--rounds N] [--out FILE]
// The hand-written bounded maps left on request hot paths against lru-cache doing the same job
// (issue 19, finding 4: keep a custom map only where it measurably pays), in one process, sides
// alternating (custom, lru-cache, custom, …) for ROUNDS rounds. Each side answers the same key
// sequence: mostly hits on a hot set, one miss and insert in 16 (so eviction runs too).
// (Cypher statements had their own CLOCK map until this bench showed lru-cache as fast, median 0.68–0.83
// lru-cache / custom; they are on lru-cache now.)
// - GraphQL documents: PreparedDocuments (per schema, per operation name, per text) against a
//   WeakMap of lru-caches keyed by name + NUL + text.
// Prints ns per operation (min and median of the rounds) and the ratio lru-cache / custom.
import { writeFileSync } from 'node:fs';
import { parse } from 'graphql';
import { LRUCache } from 'lru-cache';
import { PreparedDocuments, type Prepared } from '../../src/graph/graphql/prepared-documents.ts';
import { median, printTable } from './bench-stats.ts';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const ROUNDS = Number(option('--rounds') ?? 7);
const OPS = 400_000;
const HOT = 500;
const CAPACITY = 1000;

/** A fixed pseudo-random sequence (xorshift), so both sides see the same keys. */
function sequence(length: number, hot: number): Int32Array {
  const out = new Int32Array(length);
  let x = 2463534242;
  let fresh = hot;
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    out[i] = (x >>> 0) % 16 === 0 ? fresh++ : (x >>> 0) % hot;
  }
  return out;
}
const keys = sequence(OPS, HOT);
const maxKey = keys.reduce((a, b) => Math.max(a, b), 0) + 1;

interface Side { readonly name: string; run(): void }
interface Pair { readonly name: string; readonly custom: Side; readonly lru: Side }

// GraphQL documents.
const documents = Array.from({ length: maxKey }, (_, i) => `query Q${i % 7}($n: Int) { Person(first: $n) { name email WORKS_AT { name country } c${i}: __typename } }`);
const names = Array.from({ length: maxKey }, (_, i) => `Q${i % 7}`);
const preparedValue: Prepared = { document: parse('{ __typename }'), operation: parse('{ __typename }').definitions[0] as Prepared['operation'] };
const schema = {};
function documentPair(): Pair {
  return {
    name: 'GraphQL documents',
    custom: {
      name: 'PreparedDocuments',
      run() {
        const cache = new PreparedDocuments(CAPACITY);
        for (const k of keys) {
          if (cache.get(schema, names[k]!, documents[k]!) === undefined) cache.set(schema, names[k]!, documents[k]!, preparedValue);
        }
      },
    },
    lru: {
      name: 'lru-cache',
      run() {
        const bySchema = new WeakMap<object, LRUCache<string, Prepared>>();
        for (const k of keys) {
          let cache = bySchema.get(schema);
          if (cache === undefined) {
            cache = new LRUCache<string, Prepared>({ max: CAPACITY });
            bySchema.set(schema, cache);
          }
          const key = `${names[k]!}\u0000${documents[k]!}`;
          if (cache.get(key) === undefined) cache.set(key, preparedValue);
        }
      },
    },
  };
}

function timeNs(side: Side): number {
  const start = process.hrtime.bigint();
  side.run();
  return Number(process.hrtime.bigint() - start) / OPS;
}

const results: Record<string, { custom: number[]; lru: number[]; ratio: number[] }> = {};
for (const pair of [documentPair()]) {
  // Warm both sides (JIT) before measuring.
  pair.custom.run();
  pair.lru.run();
  const r = { custom: [] as number[], lru: [] as number[], ratio: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const custom = timeNs(pair.custom);
    const lru = timeNs(pair.lru);
    r.custom.push(custom);
    r.lru.push(lru);
    r.ratio.push(lru / custom);
  }
  results[pair.name] = r;
}

const f = (n: number): string => n.toFixed(1);
printTable([
  ['map', 'custom ns/op min', 'median', 'lru-cache ns/op min', 'median', 'lru/custom min', 'median'],
  ...Object.entries(results).map(([name, r]) => [name, f(Math.min(...r.custom)), f(median(r.custom)), f(Math.min(...r.lru)), f(median(r.lru)), Math.min(...r.ratio).toFixed(2), median(r.ratio).toFixed(2)]),
]);
process.stdout.write(`(${ROUNDS} alternating rounds of ${OPS} operations each, ${HOT} hot keys, capacity ${CAPACITY}, one miss in 16)\n`);
const out = option('--out');
if (out !== undefined) writeFileSync(out, `${JSON.stringify({ rounds: ROUNDS, ops: OPS, results }, null, 2)}\n`);
