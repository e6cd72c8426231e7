import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { App } from '@fxdesk/core';

/** A file Vite named by its content (`index-BqZ3x9Kf.js`): a new build writes a new name, so it never changes. */
const CONTENT_HASHED = /-[\w-]{8,}\.[a-z\d]+$/i;

/**
 * The console's page loads nothing from another host and cannot be framed (its buttons start and
 * stop the strategy). Styles set from script (the charts') are allowed by `style-src`.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

const NOT_BUILT = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>fxdesk console · not built</title></head>
  <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
    <h1>The console is not built</h1>
    <p>The strategy service serves the console from <code>packages/console/dist</code>, which does not exist yet. Build it:</p>
    <pre>npm run build -w @fxdesk/console</pre>
    <p>then reload this page (no restart needed). The API works meanwhile: <a href="/docs">/docs</a>.</p>
  </body>
</html>
`;

/**
 * GET /ui/…: the console's Vite build (CONSOLE_DIST_DIR) as static files. Hashed assets are
 * cached for good, everything else revalidated; a browser navigation to a path of the app that
 * is no file (`/ui/pairs/EUR_USD`) gets index.html, which routes it. The files carry no data, so
 * they load without a login: the login page must render. While the build is missing, every
 * path answers 503 with a page saying how to build it; a build made later is served at once.
 */
export async function registerUiRoutes(app: App, distDir: string): Promise<void> {
  const root = path.resolve(distDir);
  const isBuilt = () => fs.existsSync(path.join(root, 'index.html'));
  if (!isBuilt()) app.log.warn({ dir: root }, 'the console is not built: /ui answers 503 until `npm run build -w @fxdesk/console`');

  await app.register(async (scope) => {
    // Only reply.sendFile (ranges, ETags, MIME types, no escaping the root); the routes are these.
    await scope.register(fastifyStatic, { serve: false });
    const hidden = { schema: { hide: true } };

    scope.get('/ui', hidden, async (_request, reply) => reply.redirect('ui/', 302));

    scope.get<{ Params: { '*': string } }>('/ui/*', hidden, async (request, reply) => {
      reply.header('x-content-type-options', 'nosniff');
      if (!isBuilt()) return reply.status(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT);
      const file = request.params['*'];
      if (await isFileIn(root, file)) {
        reply.header('cache-control', CONTENT_HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
        if (file.endsWith('.html')) reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
        return reply.sendFile(file, root, { cacheControl: false });
      }
      const isNavigation = file === '' || (request.headers.accept ?? '').includes('text/html');
      if (!isNavigation) return reply.callNotFound();
      reply.header('cache-control', 'no-cache').header('content-security-policy', CONTENT_SECURITY_POLICY);
      return reply.sendFile('index.html', root, { cacheControl: false });
    });
  });
}

/** Whether `file` names a regular file inside `root` (never outside it, whatever the `..`). */
async function isFileIn(root: string, file: string): Promise<boolean> {
  if (file === '') return false;
  const full = path.join(root, file);
  if (!full.startsWith(root + path.sep)) return false;
  const stat = await fs.promises.stat(full).catch(() => undefined);
  return stat?.isFile() ?? false;
}
