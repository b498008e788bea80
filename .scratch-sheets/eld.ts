import { monitorEventLoopDelay } from 'node:perf_hooks';
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
async function measure(work: () => Promise<unknown>) {
  await turn();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await sleep(5);
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  await sleep(20);
  delay.disable();
  return { ms, stall: delay.max / 1e6, n: delay.count };
}
for (let i = 0; i < 4; i++) console.log(await measure(async () => { const t = Date.now(); while (Date.now() - t < 200); }));
