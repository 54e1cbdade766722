import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';

/**
 * A scrape, parsed by a real Prometheus text-format parser, with lookups by name and labels.
 * parse-prometheus-text-format 1.1 folds every label set of a histogram into one sample (its buckets
 * of the last set, no count or sum), so histogram series are read from a second parse with the
 * histogram TYPE lines left out, where `<name>_count` and `<name>_sum` are plain samples.
 */
export class Scrape {
  readonly text: string;
  readonly families: ReadonlyMap<string, PrometheusFamily>;
  /** Every sample line's family by its own name (`h_count`, `h_sum`, `h_bucket` included), label sets merged. */
  readonly #series = new Map<string, PrometheusSample[]>();

  constructor(text: string) {
    this.text = text;
    this.families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
    const untyped = text.split('\n').filter((line) => !/^# TYPE \S+ histogram$/.test(line)).join('\n');
    for (const family of parsePrometheusTextFormat(untyped)) {
      const list = this.#series.get(family.name) ?? [];
      list.push(...family.metrics);
      this.#series.set(family.name, list);
    }
  }

  /** A histogram's observations with these labels (0 when none). */
  count(name: string, labels: Record<string, string> = {}): number {
    if (this.family(name).type !== 'HISTOGRAM') throw new Error(`${name} is no histogram`);
    const sample = (this.#series.get(`${name}_count`) ?? []).find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    return sample === undefined ? 0 : Number(sample.value);
  }

  family(name: string): PrometheusFamily {
    const found = this.families.get(name);
    if (found === undefined) throw new Error(`no metric ${name} in the scrape`);
    return found;
  }

  /** The sample whose labels include `labels`; undefined when none. */
  sample(name: string, labels: Record<string, string> = {}): PrometheusSample | undefined {
    return this.family(name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  }

  /** A counter's or gauge's value (0 when no sample has these labels); a histogram's count. */
  value(name: string, labels: Record<string, string> = {}): number {
    if (this.family(name).type === 'HISTOGRAM') return this.count(name, labels);
    const sample = this.sample(name, labels);
    return sample === undefined ? 0 : Number(sample.value);
  }
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`scrape ${url}: ${res.status} ${await res.text()}`);
  if (!res.headers.get('content-type')?.startsWith('text/plain; version=0.0.4')) throw new Error(`scrape ${url}: content-type ${res.headers.get('content-type')}`);
  return new Scrape(await res.text());
}
