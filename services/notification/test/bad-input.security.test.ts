import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startService, type Harness } from './harness.js';

const SECRET = 'property-secret';
let h: Harness;
beforeAll(async () => {
  h = await startService({ CHAT_APP_CHAT_IDS: '1', SMS_TO: '+14155550100', MESSENGER_APP_APP_SECRET: SECRET, MESSENGER_APP_VERIFY_TOKEN: 'property-verify' });
});
afterAll(() => h.close());

/** Never a 500; every error is the envelope. */
function expectHandled(res: { statusCode: number; body: string; headers: Record<string, unknown> }): void {
  expect(res.statusCode).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(JSON.parse(res.body)).toMatchObject({ error: true, code: expect.any(String), message: expect.any(String) });
  }
}

const channel = fc.oneof(fc.constantFrom('CHAT_APP', 'EMAIL', 'SMS', 'MESSENGER_APP'), fc.string());
const nearValidBody = fc.record(
  {
    message: fc.oneof(fc.string({ maxLength: 300 }), fc.constant(''), fc.integer(), fc.constant(null)),
    channels: fc.oneof(fc.array(channel, { maxLength: 6 }), fc.string(), fc.constant(null)),
    source: fc.oneof(fc.string({ maxLength: 120 }), fc.integer()),
    subject: fc.oneof(fc.string({ maxLength: 300 }), fc.boolean()),
    contentType: fc.oneof(fc.constantFrom('text', 'html'), fc.string()),
    idempotencyKey: fc.oneof(fc.string({ maxLength: 260 }), fc.integer(), fc.constant(null)),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const html = fc
  .array(
    fc.constantFrom(
      '<b>',
      '</b>',
      '<i>',
      '</u>',
      '<a href="http://x">',
      '</a>',
      '<pre><code class="language-js">',
      '</pre>',
      '<br>',
      '<p>',
      '&amp;',
      '&#0;',
      '&#x110000;',
      '<',
      '>',
      '&',
      'text',
      '\n',
      '<script>',
      '<!--',
      '<li>',
      '<h1>',
      '<span class="tg-spoiler">',
      '</span>',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('bad input never gets a 500', () => {
  it('POST /notifications with arbitrary and near-valid bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          nearValidBody,
          fc.record({ message: html, channels: fc.constant(['CHAT_APP', 'SMS']), source: fc.constant('p'), contentType: fc.constant('html') }),
        ),
        async (body) => {
          const res = await h.app.inject({
            method: 'POST',
            url: '/notifications',
            headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
            payload: JSON.stringify(body) ?? 'null',
          });
          expectHandled(res);
        },
      ),
      { numRuns: 400 },
    );
    await h.outbox.settle();
  });

  it('POST /notifications with raw bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        async (raw, type) => {
          expectHandled(await h.app.inject({ method: 'POST', url: '/notifications', headers: { 'x-api-key': API_KEY, 'content-type': type }, payload: raw }));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('GET /notifications and /notifications/:id with arbitrary queries and ids', async () => {
    const key = fc.constantFrom('limit', 'source', 'recipient', 'status', 'channel', 'cursor', 'other');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, fc.string({ maxLength: 40 })), { maxLength: 5 }), fc.string({ maxLength: 60 }), async (pairs, id) => {
        const query = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        expectHandled(await h.app.inject({ method: 'GET', url: `/notifications?${query}`, headers: { 'x-api-key': API_KEY } }));
        expectHandled(await h.app.inject({ method: 'GET', url: `/notifications/${encodeURIComponent(id) || 'x'}`, headers: { 'x-api-key': API_KEY } }));
      }),
      { numRuns: 200 },
    );
  });

  it('the messenger webhook with arbitrary payloads, signed and unsigned, and arbitrary verification queries', async () => {
    const statuses = fc.array(
      fc.record(
        {
          id: fc.oneof(fc.string(), fc.integer()),
          status: fc.oneof(fc.constantFrom('sent', 'delivered', 'read', 'failed'), fc.string()),
          timestamp: fc.oneof(fc.string(), fc.integer().map(String), fc.constant('1e400')),
          errors: fc.anything(),
          biz_opaque_callback_data: fc.oneof(fc.string(), fc.integer()),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 4 },
    );
    const payload = fc.oneof(
      fc.anything(),
      fc.record({
        entry: fc.oneof(
          fc.anything(),
          fc.array(
            fc.record({ changes: fc.oneof(fc.anything(), fc.array(fc.record({ value: fc.oneof(fc.anything(), fc.record({ statuses })) }), { maxLength: 2 })) }),
            { maxLength: 2 },
          ),
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(payload, fc.boolean(), fc.string({ maxLength: 50 }), async (body, signed, challenge) => {
        const raw = JSON.stringify(body) ?? 'null';
        const signature = signed ? `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}` : 'sha256=00';
        expectHandled(
          await h.app.inject({
            method: 'POST',
            url: '/webhooks/messenger_app',
            headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
            payload: raw,
          }),
        );
        const res = await h.app.inject({
          method: 'GET',
          url: `/webhooks/messenger_app?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(challenge)}&hub.challenge=${encodeURIComponent(challenge)}`,
        });
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
  });
});
