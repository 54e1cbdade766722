import { startFuzzTarget } from '../../test/hostile/fuzz/fuzz-target.ts';
const t = await startFuzzTarget();
const lat: number[] = [];
const end = Date.now() + 30_000;
while (Date.now() < end) {
  t.prober.reset();
  await new Promise((r) => setTimeout(r, 1000));
  lat.push(t.prober.slowestMs());
}
lat.sort((a, b) => a - b);
console.log('idle server: slowest /healthz per 1 s window, sorted:', lat.join(' '));
await t.close();
