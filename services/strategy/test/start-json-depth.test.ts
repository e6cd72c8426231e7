import { MAX_JSON_DEPTH } from '@fxdesk/core';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the control routes’ own JSON parser', () => {
  it(`refuses a /start body nesting deeper than ${MAX_JSON_DEPTH} levels with 400 INVALID_JSON, and leaves the strategy stopped`, async () => {
    h = await harness();
    const deep = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    for (const url of ['/start', '/console/start']) {
      const res = await h.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: `{"instruments":${deep}}` });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ error: true, code: 'INVALID_JSON' });
    }
    expect((await h.app.inject({ method: 'GET', url: '/status' })).json()).toMatchObject({ running: false });
  });

  it('still takes an empty body as no body', async () => {
    h = await harness();
    const res = await h.app.inject({ method: 'POST', url: '/start', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(res.statusCode).toBe(200);
  });
});
