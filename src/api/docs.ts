import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Hono } from 'hono';
import { surfaceMounts } from './surfaces';
import type { AppEnv } from './types';

/** `/docs`: Swagger UI for every served OpenAPI document, offline (assets from swagger-ui-dist, never a CDN). */

export interface OpenApiDocumentRef {
  /** `surface-<letter>.<environment>`: the generated client is `clients/typescript/generated/<id>.d.ts`. */
  id: string;
  name: string;
  url: string;
}

/** Every served OpenAPI document (one per surface and environment, sandbox first), for `/docs` and `npm run client:generate`. */
export function servedOpenApiDocuments(): OpenApiDocumentRef[] {
  const mounts = [...surfaceMounts()].sort((a, b) => Number(b.environment === 'sandbox') - Number(a.environment === 'sandbox'));
  return mounts.map((m) => ({ id: `surface-${m.surface.toLowerCase()}.${m.environment}`, name: m.label, url: m.openapiPath }));
}

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

let assetDir: string | undefined;
const assetCache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let body = assetCache.get(name);
  if (!body) {
    assetDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    body = readFileSync(join(assetDir, name));
    assetCache.set(name, body);
  }
  return body;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Registers `/docs`, `/docs/init.js` and `/docs/assets/<file>`; public (no API key), validator badge off. */
export function registerDocs(app: Hono<AppEnv>, documents: OpenApiDocumentRef[] = servedOpenApiDocuments()): void {
  const title = 'Payouts API reference';
  const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16">
<style>body { margin: 0; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;
  const init = `window.ui = SwaggerUIBundle({
  urls: ${JSON.stringify(documents.map((d) => ({ url: d.url, name: d.name })))},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: 'StandaloneLayout',
});
`;
  app.get('/docs', (c) => c.html(page));
  app.get('/docs/init.js', (c) => c.body(init, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get('/docs/assets/:file', (c) => {
    const name = c.req.param('file');
    const type = ASSETS[name];
    if (!type) return c.notFound();
    return c.body(new Uint8Array(asset(name)), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' });
  });
}
