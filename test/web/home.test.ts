// The home page at `/`, driven in headless Chromium (Debian's, through
// playwright-core) against the whole service over a copy of the demo data:
// the anonymous gallery, signing in through the form, a map's versions and
// diff, a map made in the composer and published, an embed snippet copied and
// loaded in another page, the phone width, and the names of every control in
// the accessibility tree. Throughout: no console error, no page error, and no
// request to any host but the service's.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_PASSWORD, makeDemoApp, type TestApp } from '../helpers/app.ts';

const DEMO_MAP = 'znfjfuT';

const skip = chromiumMissing();

describe('the home page in Chromium', { skip }, () => {
  let t: TestApp;
  let server: ReturnType<typeof serve>;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** What went wrong in any page of the context: console errors, page errors, requests elsewhere. */
  const trouble = { console: [] as string[], errors: [] as string[], elsewhere: [] as string[] };

  before(async () => {
    t = await makeDemoApp();
    server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    // A fresh profile each run (a new context is one), with the clipboard allowed for the embed test.
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'blob:' || url.protocol === 'data:') return route.continue();
      trouble.elsewhere.push(url.href);
      return route.abort();
    });
    context.on('page', (p) => watch(p));
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    server?.close();
    await t?.close();
  });

  function watch(p: Page) {
    p.on('console', (m) => {
      if (m.type() === 'error') trouble.console.push(m.text());
    });
    p.on('pageerror', (e) => trouble.errors.push(String(e)));
  }

  /** Drops Chromium's own console line for an answer of this status that the page expected and showed. */
  const forgive = (status: number) => {
    const expected = `the server responded with a status of ${status}`;
    const before = trouble.console.length;
    trouble.console = trouble.console.filter((m) => !m.includes(expected));
    assert.equal(before - trouble.console.length, 1, `one failed resource of status ${status}`);
  };

  /** Every <img> of the page has loaded a picture. */
  const picturesLoaded = (p: Page) => p.waitForFunction(() => {
    const imgs = [...document.querySelectorAll('map-picture img')] as HTMLImageElement[];
    return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0);
  }, undefined, { timeout: 60_000 });

  it('shows the published demo map to anyone, with its picture', async () => {
    await page.goto(`${base}/`);
    const card = page.getByRole('link', { name: /North America|backbone/i }).first();
    await card.waitFor();
    assert.ok(await page.locator(`map-picture[src^="/api/v1/public/output/map/${DEMO_MAP}/svg/"]`).count() === 1);
    await picturesLoaded(page);
  });

  it('signs in through the form with fields labelled Username and Password', async () => {
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The API's own detail, shown as it is.
    await page.locator('#status[data-kind="error"]').filter({ hasText: /password/i }).waitFor();
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#account').getByText('Signed in as admin').waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    forgive(400); // the refused login's 400, which Chromium itself logs as a failed resource
  });

  it("opens the demo map: its versions, and the diff between two of them", async () => {
    await page.getByRole('link', { name: /North America|backbone/i }).first().click();
    for (const name of ['Versions', 'Diff', 'Unpublish', 'Embed']) await page.getByRole('button', { name, exact: true }).waitFor();
    await picturesLoaded(page);
    await page.getByRole('button', { name: 'Versions', exact: true }).click();
    const rows = page.getByRole('region', { name: 'Versions' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 2, 'the demo map has two versions');
    await page.getByRole('button', { name: 'Diff', exact: true }).click();
    await page.getByLabel('From', { exact: true }).selectOption('1');
    await page.getByLabel('To', { exact: true }).selectOption('2');
    await page.getByRole('button', { name: 'Show the diff' }).click();
    await page.locator('.diff-out ul, .diff-out p').first().waitFor();
    const text = await page.locator('.diff-out').textContent() ?? '';
    assert.match(text, /Changes: \d+|No change/);
  });

  it('makes a map in the composer, previews it, saves it and publishes it', async () => {
    await page.getByRole('link', { name: 'New map' }).click();
    await page.getByLabel('Map name').fill('Composer test map');
    // The layer's live-traffic binding from the rows' columns, bound to the built-in demo source.
    await page.getByLabel('Traffic source').selectOption('demo');
    for (const [label, column] of [['A end router', 'source'], ['A end port', 'id'], ['Z end router', 'destination'], ['Z end port', 'id'], ['Capacity, Gb/s', 'capacity']]) {
      await page.getByLabel(label, { exact: true }).selectOption(column);
    }
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.preview svg circle').first().waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Composer test map' }).waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('button', { name: 'Unpublish', exact: true }).waitFor();
    const published = await (await fetch(`${base}/api/v1/public/maps/`)).json() as { name: string }[];
    assert.ok(published.some((m) => m.name === 'Composer test map'), 'the new map is among the public maps');
    const made = published.find((m) => m.name === 'Composer test map') as unknown as { mapId: string };
    const stored = await (await t.request(`/api/v1/map/id/${made.mapId}/`, { token: await t.token() })).json() as { configuration: { layers: { traffic?: unknown }[] } };
    assert.deepEqual(stored.configuration.layers[0].traffic, {
      source: 'demo', a: { instance: '{source}', ifName: '{id}' }, z: { instance: '{destination}', ifName: '{id}' }, capacity: '{capacity} Gbps',
    }, 'the composer stores the layer\'s traffic binding');
    await picturesLoaded(page);
  });

  it('says when someone saved a newer version while the composer was open, and reloads it', async () => {
    await page.goto(`${base}/#/compose/${DEMO_MAP}`);
    await page.getByLabel('Map name').waitFor();
    // Another editor saves meanwhile.
    const token = await t.token();
    const current = await (await t.request(`/api/v1/map/id/${DEMO_MAP}/`, { token })).json() as Record<string, unknown>;
    assert.equal((await t.request(`/api/v1/map/id/${DEMO_MAP}/`, { method: 'PUT', token, json: { ...current, name: 'Saved by someone else' } })).status, 200);
    await page.getByLabel('Map name').fill('My rename');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#status[data-kind="error"]').filter({ hasText: 'Someone saved a newer version' }).waitFor();
    await page.getByRole('button', { name: 'Reload the map' }).click();
    await page.getByRole('heading', { name: 'Edit Saved by someone else' }).waitFor();
    forgive(412); // Chromium logs the 412 itself as a failed resource
  });

  it('copies an embed snippet that shows the map in another page', async () => {
    await page.goto(`${base}/#/`);
    await page.getByRole('link', { name: 'Composer test map' }).click();
    await page.getByRole('button', { name: 'Embed', exact: true }).click();
    await page.getByRole('button', { name: /^Copy: SVG picture/ }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(snippet, /^<img src="http:\/\/127\.0\.0\.1:\d+\/api\/v1\/public\/output\/map\/\w{7}\/svg\/" alt="Composer test map">$/);
    const other = await context.newPage();
    await other.setContent(`<!doctype html><title>status page</title><body>${snippet}</body>`);
    await other.waitForFunction(() => {
      const img = document.querySelector('img');
      return img?.complete && img.naturalWidth > 0;
    }, undefined, { timeout: 60_000 });
    await other.close();
  });

  it('fetches the picture of a map with live layers again by itself', async () => {
    const token = await t.token();
    const res = await t.request('/api/v1/map/', { method: 'POST', token, json: {
      name: 'Live test map', configuration: { layers: [{ name: 'Live', datasetId: 'A1PiupU', datatype: 'dynamic' }] },
    } });
    assert.equal(res.status, 201);
    const { mapId } = await res.json() as { mapId: string };
    await page.goto(`${base}/#/`);
    const live = page.locator(`map-picture[src^="/api/v1/output/map/${mapId}/svg/"]`);
    await live.waitFor();
    assert.equal(await live.getAttribute('refresh'), '60', 'a minute without a traffic source to give its step');
    assert.equal(await page.locator('map-picture[src*="znfjfuT"]').getAttribute('refresh'), '60', 'the demo map, live from the demo source, refreshes within its step');
  });

  it('has no horizontal scroll at a phone\'s width', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 375, height: 740 });
    for (const hash of ['#/', `#/map/${DEMO_MAP}`, '#/compose', '#/datasets']) {
      await phone.goto(`${base}/${hash}`);
      await phone.locator('main h1').first().waitFor();
      await phone.waitForLoadState('networkidle');
      const [scroll, client] = await phone.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      assert.ok(scroll <= client, `${hash}: page ${scroll} px wide in a ${client} px window`);
    }
    await phone.close();
  });

  it('names every control in the accessibility tree', async () => {
    for (const hash of ['#/', `#/map/${DEMO_MAP}`, '#/compose', '#/datasets', '#/templates', '#/sheets']) {
      await page.goto(`${base}/${hash}`);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const tree = await page.locator('body').ariaSnapshot();
      const unnamed = tree.split('\n').filter((line) => /^\s*- (button|link|textbox|combobox|checkbox|radio|slider|spinbutton)\s*(\[[^\]]*\])?\s*:?\s*$/.test(line));
      assert.deepEqual(unnamed, [], `${hash}: controls without a name`);
    }
  });

  it('signs in and opens a map with the keyboard alone', async () => {
    const kb = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await kb.newPage();
      watch(p);
      await p.goto(`${base}/`);
      await p.getByRole('heading', { name: 'Maps' }).waitFor();
      /** Presses Tab until the focused element matches, at most 40 times. */
      const tabTo = async (test: () => boolean) => {
        for (let i = 0; i < 40; i++) {
          await p.keyboard.press('Tab');
          if (await p.evaluate(test)) return;
        }
        assert.fail('never reached by Tab');
      };
      await tabTo(() => document.activeElement?.id === 'username');
      await p.keyboard.type('admin');
      await p.keyboard.press('Tab');
      await p.keyboard.type(ADMIN_PASSWORD);
      await p.keyboard.press('Enter');
      await p.locator('#account').getByText('Signed in as admin').waitFor();
      await tabTo(() => document.activeElement?.getAttribute('href') === '#/map/znfjfuT');
      await p.keyboard.press('Enter');
      await p.getByRole('button', { name: 'Versions', exact: true }).waitFor();
      await tabTo(() => document.activeElement?.textContent === 'Versions');
      await p.keyboard.press('Enter');
      await p.getByRole('region', { name: 'Versions' }).locator('tbody tr').first().waitFor();
    } finally {
      await kb.close();
    }
  });

  it('logged no console error and sent no request elsewhere', () => {
    assert.deepEqual(trouble, { console: [], errors: [], elsewhere: [] });
  });
});
