// Debian's Chromium for the browser tests and benchmarks, launched through
// playwright-core with flags that keep it from reaching any other host
// (updates, sync, QUIC) and a fresh profile per launch.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { skipWithout } from './components.ts';

export const CHROMIUM = '/usr/bin/chromium';

/** Why a Chromium test is skipped (npm run test:fast, or no Chromium here), or false; CI must have it (.ci/run installs it). */
export const chromiumMissing = (): string | false => skipWithout('Chromium', existsSync(CHROMIUM), 'apt-get install chromium');

export const launchChromium = () => chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
