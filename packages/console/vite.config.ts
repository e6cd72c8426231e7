import { defineConfig } from 'vite';

/** The routes the console reads from the strategy service: spec 000's, the console's own, the event stream and the lab's. */
const STRATEGY_ROUTES = ['/status', '/pairs', '/signals', '/start', '/stop', '/restart', '/console', '/events', '/backtests', '/sweeps'];

/**
 * `npm run build -w @fxdesk/console` writes dist/, which the strategy service serves at /ui/.
 * JSX is compiled by Vite's own transform (Oxc) for Preact: no Babel, no plugin. `npm run dev`
 * serves the sources with hot reload and forwards the data routes to the stack's strategy service.
 */
export default defineConfig({
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, target: 'es2022' },
  server: { proxy: Object.fromEntries(STRATEGY_ROUTES.map((route) => [route, 'http://127.0.0.1:8000'])) },
});
