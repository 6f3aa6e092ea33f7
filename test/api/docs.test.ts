import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedOpenApiDocuments } from '../../src/api/docs';
import { launchBrowser, serveHarness } from '../helpers/browser';
import { createHarness, type Harness } from '../helpers/harness';

/** `/docs` works offline: Swagger UI from our own routes, every served OpenAPI document listed (docs/operations.md). */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ worker: false });
});
afterAll(async () => {
  await h?.close();
});

describe('/docs happy path', () => {
  it('renders the operations in real headless Chromium with every non-loopback request aborted', async () => {
    const server = await serveHarness(h);
    const { browser, close } = await launchBrowser();
    const offsite: string[] = [];
    const failed: string[] = [];
    try {
      const page = await browser.newPage();
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        const url = req.url();
        if (url.startsWith(server.origin) || url.startsWith('data:') || url.startsWith('blob:')) void req.continue();
        else {
          offsite.push(url);
          void req.abort();
        }
      });
      page.on('requestfailed', (req) => failed.push(req.url()));
      page.on('response', (res) => {
        if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
      });
      await page.goto(`${server.origin}/docs`, { waitUntil: 'load' });
      // The first document (Surface A sandbox) renders its operations, summaries included.
      await page.waitForFunction(`document.body.innerText.includes('Send a payout')`, { timeout: 30_000 });
      const text = (await page.evaluate('document.body.innerText')) as string;
      expect(text).toContain('Payouts API, Surface A');
      expect(text).toContain('/payouts');
      expect(text).toContain('List payouts');
      // The document picker lists every served document.
      const options = await page.$$eval('select option', (els) => els.map((e) => e.textContent?.trim()));
      for (const d of servedOpenApiDocuments()) expect(options).toContain(d.name);
      // Switching to the live document renders it too.
      const live = servedOpenApiDocuments().find((d) => d.id === 'surface-a.live')!;
      await page.select('select', live.url);
      await page.waitForFunction(`document.querySelector('.servers select')?.value === '/v1'`, { timeout: 30_000 });
      expect(offsite).toEqual([]);
      expect(failed).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  });

  it('serves the Swagger UI assets from npm with their content types', async () => {
    const css = await h.app.request('/docs/assets/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    const js = await h.app.request('/docs/assets/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect((await js.text()).length).toBeGreaterThan(100_000);
    const init = await (await h.app.request('/docs/init.js')).text();
    for (const d of servedOpenApiDocuments()) expect(init).toContain(d.url);
  });

  it('every listed document is served', async () => {
    for (const d of servedOpenApiDocuments()) {
      const res = await h.request('GET', d.url);
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
    }
  });
});

describe('/docs errors', () => {
  it('an unknown asset is a 404 in the error shape, not a file read', async () => {
    for (const name of ['..%2Fpackage.json', 'index.html', 'absolute-path.js']) {
      const res = await h.request('GET', `/docs/assets/${name}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('/docs security', () => {
  it('the page loads nothing from another origin and has no inline script', async () => {
    const res = await h.request('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.text).not.toMatch(/<script>(?!<\/script>)/);
    for (const m of res.text.matchAll(/<script([^>]*)>/g)) expect(m[1]).toMatch(/src="\/docs\//);
  });
});
