/**
 * Requests counted and timed per label set in plain numbers, written out in the Prometheus text
 * format when scraped. Every request of every surface lands here, so recording one is a bucket search
 * and three additions: prom-client's labelled children validate and hash their labels on every
 * `inc` and `observe`, which cost a small GraphQL query a tenth of its server CPU (README, "Metrics
 * on the hot path"). prom-client still writes the rarer metrics and the process's own.
 */

/** One label set's count, sum and per-bucket counts (not cumulative; made cumulative when written). */
export class TallyCell {
  readonly labels: readonly (readonly [string, string])[];
  readonly #bounds: readonly number[];
  /** counts[i]: observations in (bounds[i-1], bounds[i]]; the last slot is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(labels: readonly (readonly [string, string])[], bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** One observation: counted in the first bucket whose upper bound is at least `value` (Prometheus' `le`). */
  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** A counter and a histogram over the same label sets, fed together (a request's count and its time). */
export class CountedHistogram {
  readonly #counter: { readonly name: string; readonly help: string };
  readonly #histogram: { readonly name: string; readonly help: string };
  readonly #bounds: readonly number[];
  /** In the order first seen, as prom-client lists its children. */
  readonly #cells: TallyCell[] = [];

  constructor(counter: { name: string; help: string }, histogram: { name: string; help: string }, bounds: readonly number[]) {
    this.#counter = counter;
    this.#histogram = histogram;
    this.#bounds = [...bounds].sort((a, b) => a - b);
  }

  /** A new cell for a label set (callers keep it and observe on it directly). */
  cell(labels: Readonly<Record<string, string>>): TallyCell {
    const cell = new TallyCell(Object.entries(labels), this.#bounds);
    this.#cells.push(cell);
    return cell;
  }

  /** The two metrics in the text exposition format (version 0.0.4), as prom-client writes its own. */
  exposition(): string {
    const counter = [header(this.#counter, 'counter')];
    const histogram = [header(this.#histogram, 'histogram')];
    const name = this.#histogram.name;
    for (const cell of this.#cells) {
      const labels = cell.labels.map(([key, value]) => `${key}="${escapeLabelValue(value)}"`);
      const set = (...first: string[]): string => {
        const all = [...first, ...labels];
        return all.length === 0 ? '' : `{${all.join(',')}}`;
      };
      counter.push(`${this.#counter.name}${set()} ${cell.count}`);
      let cumulative = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        cumulative += cell.counts[i]!;
        histogram.push(`${name}_bucket${set(`le="${this.#bounds[i]}"`)} ${cumulative}`);
      }
      histogram.push(`${name}_bucket${set('le="+Inf"')} ${cell.count}`, `${name}_sum${set()} ${cell.sum}`, `${name}_count${set()} ${cell.count}`);
    }
    return `${counter.join('\n')}\n\n${histogram.join('\n')}`;
  }
}

function header(metric: { readonly name: string; readonly help: string }, type: string): string {
  return `# HELP ${metric.name} ${escapeHelp(metric.help)}\n# TYPE ${metric.name} ${type}`;
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

function escapeLabelValue(text: string): string {
  return escapeHelp(text).replaceAll('"', '\\"');
}
