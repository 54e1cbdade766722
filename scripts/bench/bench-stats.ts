// Shared by the benchmark suites: timing loops, medians and the printed table.
import { rng } from './seeded-random.ts';

/** `n` with thousands separators and exactly `digits` decimals (en-US), as the tables print numbers. */
export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A 95% bootstrap interval of the median of `values` (percentile method, `resamples` draws with a
 * fixed seed, so a report is reproducible from its numbers): how far the median could move on a
 * machine this noisy, given the rounds measured.
 */
export function medianInterval(values: readonly number[], resamples = 2000): { low: number; high: number } {
  const random = rng(0x5eed);
  const medians: number[] = [];
  for (let r = 0; r < resamples; r++) {
    medians.push(median(Array.from(values, () => values[Math.floor(random() * values.length)]!)));
  }
  medians.sort((a, b) => a - b);
  return { low: medians[Math.floor(resamples * 0.025)]!, high: medians[Math.ceil(resamples * 0.975) - 1]! };
}

/** `op` run by `concurrency` loops for `ms`: operations per second, and how many ran. Every operation must succeed. */
export async function timedLoops(op: () => Promise<unknown>, concurrency: number, ms: number): Promise<{ perSec: number; count: number }> {
  let count = 0;
  const start = performance.now();
  const deadline = start + ms;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      await op();
      count += 1;
    }
  }));
  return { perSec: (count / (performance.now() - start)) * 1000, count };
}

/** Operations per second of `op` run by `concurrency` loops for `ms`; every operation must succeed. */
export async function throughput(op: () => Promise<unknown>, concurrency: number, ms: number): Promise<number> {
  return (await timedLoops(op, concurrency, ms)).perSec;
}

/** Prints rows as an aligned table, a rule under the header. */
export function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const [i, row] of rows.entries()) {
    process.stdout.write(`${row.map((c, j) => c.padEnd(widths[j]!)).join('  ')}\n`);
    if (i === 0) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
}
