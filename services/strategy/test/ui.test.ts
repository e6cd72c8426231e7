import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, tempDir, type Harness } from './helpers.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/ui/assets/index-D3cICnmH.js"></script></head><body><div id="app"></div></body></html>';

let cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** A console build as Vite writes it: index.html, hashed assets, a favicon. */
function build(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'index-D3cICnmH.js'), 'console.log("desk")');
  fs.writeFileSync(path.join(dir, 'assets', 'index-DnscFu3c.css'), 'body{margin:0}');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

async function desk(env: Record<string, string>): Promise<Harness> {
  const h = await harness({ env });
  cleanups.push(() => h.close());
  return h;
}

describe('/ui', () => {
  it('serves index.html at /ui/, revalidated every time, under a policy that loads nothing from elsewhere and forbids framing', async () => {
    const h = await desk({ CONSOLE_DIST_DIR: build() });
    const res = await h.app.inject({ url: '/ui/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.body).toBe(INDEX);
    const redirect = await h.app.inject({ url: '/ui' });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('ui/');
  });

  it('serves hashed assets as immutable for a year and other files revalidated', async () => {
    const h = await desk({ CONSOLE_DIST_DIR: build() });
    const script = await h.app.inject({ url: '/ui/assets/index-D3cICnmH.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe('console.log("desk")');
    expect((await h.app.inject({ url: '/ui/assets/index-DnscFu3c.css' })).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await h.app.inject({ url: '/ui/favicon.svg' });
    expect(icon.headers['cache-control']).toBe('no-cache');
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    // Revalidation answers 304 from the ETag.
    const again = await h.app.inject({ url: '/ui/favicon.svg', headers: { 'if-none-match': icon.headers.etag as string } });
    expect(again.statusCode).toBe(304);
  });

  it("answers a browser navigation to one of the app's own paths with index.html, a missing asset with 404", async () => {
    const h = await desk({ CONSOLE_DIST_DIR: build() });
    const page = await h.app.inject({ url: '/ui/pairs/EUR_USD', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(INDEX);
    expect(page.headers['cache-control']).toBe('no-cache');
    const missing = await h.app.inject({ url: '/ui/assets/index-gone1234.js', headers: { accept: '*/*' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('never serves a file outside the build', async () => {
    const dir = build();
    fs.writeFileSync(path.join(dir, '..', `${path.basename(dir)}-secret.txt`), 'the content of a file beside the build');
    cleanups.push(() => fs.rmSync(path.join(dir, '..', `${path.basename(dir)}-secret.txt`)));
    const h = await desk({ CONSOLE_DIST_DIR: dir });
    for (const url of [`/ui/../${path.basename(dir)}-secret.txt`, `/ui/%2e%2e/${path.basename(dir)}-secret.txt`, '/ui/..%2f..%2fetc%2fpasswd']) {
      const res = await h.app.inject({ url, headers: { accept: '*/*' } });
      expect(res.body, url).not.toContain('the content of a file');
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
    }
  });

  it('loads without a login when CONSOLE_PASSWORD is set (the login page must render), and from any address', async () => {
    const h = await desk({ CONSOLE_DIST_DIR: build(), CONSOLE_PASSWORD: 'correct horse battery staple' });
    expect((await h.app.inject({ url: '/ui/', remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    expect((await h.app.inject({ url: '/ui/assets/index-D3cICnmH.js', remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    expect((await h.app.inject({ url: '/console/session', remoteAddress: '203.0.113.9' })).json()).toMatchObject({ authenticated: false });
  });

  it('answers 503 with a page saying how to build the console while it is not built, and serves it once built, without a restart', async () => {
    const { dir } = tempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const dist = path.join(dir, 'dist');
    const h = await desk({ CONSOLE_DIST_DIR: dist });
    for (const url of ['/ui/', '/ui/pairs/EUR_USD', '/ui/assets/index-D3cICnmH.js']) {
      const res = await h.app.inject({ url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('npm run build -w @fxdesk/console');
    }
    // The API is unaffected.
    expect((await h.app.inject({ url: '/status' })).statusCode).toBe(200);
    fs.cpSync(build(), dist, { recursive: true });
    expect((await h.app.inject({ url: '/ui/' })).body).toBe(INDEX);
  });

  it('is not in the OpenAPI document', async () => {
    const h = await desk({ CONSOLE_DIST_DIR: build() });
    const paths = Object.keys((await h.app.inject({ url: '/docs/json' })).json<{ paths: object }>().paths);
    expect(paths.filter((p) => p.startsWith('/ui'))).toEqual([]);
  });
});
