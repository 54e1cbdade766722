// autocannon ships no type declarations; this covers the surface the benchmarks use.
declare module 'autocannon' {
  export interface Options {
    url: string;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    connections?: number;
    duration?: number;
    pipelining?: number;
  }
  export interface Histogram {
    average: number;
    total: number;
    p50: number;
    p99: number;
  }
  export interface Result {
    errors: number;
    non2xx: number;
    requests: Histogram;
    latency: Histogram;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
