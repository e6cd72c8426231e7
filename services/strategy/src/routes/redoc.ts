import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { App } from '@fxdesk/core';

const require = createRequire(import.meta.url);

/** Redoc's self-contained browser bundle, from the `redoc` package (no CDN: a locked-down host reaches none). */
export const REDOC_BUNDLE_PATH = require.resolve('redoc/bundles/redoc.standalone.js');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)} · API reference</title>
    <style>body { margin: 0; padding: 0; }</style>
  </head>
  <body>
    <redoc spec-url="/docs/json"></redoc>
    <script src="/redoc/redoc.standalone.js"></script>
  </body>
</html>
`;
}

/**
 * Everything the page needs comes from this service. The bundle also shows a decorative Redocly
 * logo from cdn.redoc.ly (hidden when it fails to load); the policy stops the browser from even
 * trying, so a locked-down host sees no outbound request. Redoc's styles are injected inline and
 * its search index runs in a blob: worker.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
].join('; ');

/** GET /redoc: the OpenAPI document (/docs/json) rendered by Redoc, its bundle served from here. */
export function registerRedocRoutes(app: App, title: string): void {
  const html = page(title);
  let bundle: Buffer | undefined;
  const noLimit = { rateLimit: false as const };
  app.get('/redoc', { schema: { hide: true }, config: noLimit }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', CONTENT_SECURITY_POLICY).send(html),
  );
  app.get('/redoc/redoc.standalone.js', { schema: { hide: true }, config: noLimit }, async (_request, reply) => {
    bundle ??= await fs.promises.readFile(REDOC_BUNDLE_PATH);
    return reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400').send(bundle);
  });
}
