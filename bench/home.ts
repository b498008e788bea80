// The home page beside the API reference, both through headless Chromium over
// the demo data: time to the first byte of the page, and time until it is
// fully loaded and drawn (`/`: every map picture loaded; `/docs`: the
// operations listed), each the median of alternating visits in fresh browser
// contexts (no cache), after one warm-up visit each (the pictures' first
// render). Target: `/` at most 1x `/docs` on both.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../test/helpers/chromium.ts';
import { copyDemoData } from '../test/helpers/demo-data.ts';
import { listen, startService } from './service.ts';

const VISITS = 7;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** First byte and fully drawn, in ms from the start of the navigation. */
async function visit(browser: Browser, url: string, drawn: () => boolean): Promise<[number, number]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(drawn, undefined, { timeout: 60_000 });
    return await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return [nav.responseStart, performance.now()] as [number, number];
    });
  } finally {
    await context.close();
  }
}

// Functions, not strings: the home page's Content-Security-Policy forbids evaluating strings.
const HOME_DRAWN = () => {
  const imgs = [...document.querySelectorAll('map-picture img')] as HTMLImageElement[];
  return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0);
};
const DOCS_DRAWN = () => document.querySelectorAll('.opblock').length > 0;

export async function benchHome(): Promise<string[]> {
  const missing = chromiumMissing();
  if (missing) return [`skipped: ${missing}`];
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-bench-home-'));
  await copyDemoData(dir);
  const service = await startService(dir);
  const server = await listen(service.app.fetch);
  const browser = await launchChromium();
  try {
    const home: [number, number][] = [];
    const docs: [number, number][] = [];
    await visit(browser, `${server.url}/`, HOME_DRAWN);
    await visit(browser, `${server.url}/docs`, DOCS_DRAWN);
    for (let i = 0; i < VISITS; i++) {
      home.push(await visit(browser, `${server.url}/`, HOME_DRAWN));
      docs.push(await visit(browser, `${server.url}/docs`, DOCS_DRAWN));
    }
    const line = (what: string, k: 0 | 1) => {
      const [a, b] = [median(home.map((v) => v[k])), median(docs.map((v) => v[k]))];
      return `${what} of / (demo data): ${a.toFixed(1)} ms vs /docs ${b.toFixed(1)} ms = ${(a / b).toFixed(2)}x (target <= 1x; median of ${VISITS} visits in fresh contexts)`;
    };
    return [line('First byte', 0), line('Fully loaded and drawn', 1)];
  } finally {
    await browser.close();
    server.close();
    await service.store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await benchHome()) console.log(line);
}
