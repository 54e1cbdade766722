// Shared by the secrets and delegation suites: timing loops, medians and the printed table.

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Operations per second of `op` run by `concurrency` loops for `ms`; every operation must succeed. */
export async function throughput(op: () => Promise<unknown>, concurrency: number, ms: number): Promise<number> {
  let count = 0;
  const start = performance.now();
  const deadline = start + ms;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      await op();
      count += 1;
    }
  }));
  return (count / (performance.now() - start)) * 1000;
}

/** Prints rows as an aligned table, a rule under the header. */
export function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const [i, row] of rows.entries()) {
    process.stdout.write(`${row.map((c, j) => c.padEnd(widths[j]!)).join('  ')}\n`);
    if (i === 0) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
}
