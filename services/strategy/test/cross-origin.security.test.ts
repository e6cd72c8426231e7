import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

/**
 * Spec 000's control routes and a page of another origin, in production with the console's
 * password set as in development (the browser test drives the real thing in development).
 */

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

const PRODUCTION = { NODE_ENV: 'production', CONSOLE_PASSWORD: 'correct horse battery staple' };
const FOREIGN = { host: 'desk.example.com', origin: 'https://attacker.example' };

for (const [name, env] of [
  ['in development', {}],
  ['in production with CONSOLE_PASSWORD', PRODUCTION],
] as const) {
  describe(`POST /start, /stop and /restart from a page of another origin, ${name}`, () => {
    it('are refused with 403 FORBIDDEN and change nothing; the same from the desk’s own origin or from a script work', async () => {
      const h = await harness({ env });
      open.push(h);
      expect(h.config.NODE_ENV).toBe('NODE_ENV' in env ? 'production' : 'development');
      for (const payload of [undefined, '{"dry_run":false}']) {
        const headers = payload ? { ...FOREIGN, 'content-type': 'application/json' } : FOREIGN;
        const res = await h.app.inject({ method: 'POST', url: '/start', headers, payload });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ error: true, code: 'FORBIDDEN' });
      }
      expect((await h.app.inject({ method: 'POST', url: '/start', headers: { 'sec-fetch-site': 'cross-site' } })).statusCode).toBe(403);
      expect(h.engine.isRunning).toBe(false);

      const own = await h.app.inject({ method: 'POST', url: '/start', headers: { host: 'desk.example.com', origin: 'https://desk.example.com' } });
      expect(own.statusCode).toBe(200);
      expect(h.engine.isRunning).toBe(true);
      for (const url of ['/stop', '/restart']) expect((await h.app.inject({ method: 'POST', url, headers: FOREIGN })).statusCode, url).toBe(403);
      expect(h.engine.isRunning).toBe(true);
      expect((await h.app.inject({ method: 'POST', url: '/stop' })).statusCode).toBe(200);
      expect(h.engine.isRunning).toBe(false);
    });
  });
}
