import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { SmsStatusWebhook, twilioSignature, type StatusRecorder } from '../src/sms-status.js';
import type { PlatformUpdate } from '../src/status.js';

const TOKEN = 'twilio-auth-token';
const PUBLIC = 'https://desk.example.com/notify';
const PATH = '/webhooks/sms?delivery=d-1';

function webhook(options: { authToken?: string; publicBaseUrl?: string } = { authToken: TOKEN, publicBaseUrl: PUBLIC }) {
  const recorded: { sid: string; delivery: string | undefined; update: PlatformUpdate; channel: string }[] = [];
  const store: StatusRecorder = {
    applyPlatformStatus: async (sid, delivery, update, _now, channel) => {
      recorded.push({ sid, delivery, update, channel });
      return 'applied';
    },
  };
  return { recorded, hook: new SmsStatusWebhook({ store, clock: new ManualClock(), authToken: options.authToken, publicBaseUrl: options.publicBaseUrl }) };
}

const params: [string, string][] = [
  ['MessageStatus', 'delivered'],
  ['MessageSid', 'SM1'],
  ['AccountSid', 'AC1'],
];

describe('twilioSignature', () => {
  it("matches Twilio's documented example", () => {
    // https://www.twilio.com/docs/usage/security#validating-requests, auth token 12345; parameters in any order.
    const example: [string, string][] = [
      ['To', '+18005551212'],
      ['From', '+14158675309'],
      ['Digits', '1234'],
      ['Caller', '+14158675309'],
      ['CallSid', 'CA1234567890ABCDE'],
    ];
    expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', example)).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  });
});

describe('SmsStatusWebhook.isAuthentic', () => {
  it('accepts the signature over PUBLIC_BASE_URL + the path and query received + the sorted parameters', () => {
    const { hook } = webhook();
    expect(hook.isAuthentic(PATH, params, twilioSignature(TOKEN, `${PUBLIC}${PATH}`, params))).toBe(true);
  });

  it('refuses another token, another URL, changed parameters, and no signature', () => {
    const { hook } = webhook();
    expect(hook.isAuthentic(PATH, params, twilioSignature('other-token', `${PUBLIC}${PATH}`, params))).toBe(false);
    expect(hook.isAuthentic('/webhooks/sms?delivery=d-2', params, twilioSignature(TOKEN, `${PUBLIC}${PATH}`, params))).toBe(false);
    const changed: [string, string][] = [...params.slice(1), ['MessageStatus', 'failed']];
    expect(hook.isAuthentic(PATH, changed, twilioSignature(TOKEN, `${PUBLIC}${PATH}`, params))).toBe(false);
    expect(hook.isAuthentic(PATH, params, undefined)).toBe(false);
    expect(hook.isAuthentic(PATH, params, '')).toBe(false);
  });

  it('accepts the URL with the default port written out, not another port', () => {
    const { hook } = webhook();
    expect(hook.isAuthentic(PATH, params, twilioSignature(TOKEN, `https://desk.example.com:443/notify${PATH}`, params))).toBe(true);
    expect(hook.isAuthentic(PATH, params, twilioSignature(TOKEN, `https://desk.example.com:8443/notify${PATH}`, params))).toBe(false);
  });

  it('refuses everything without the auth token or PUBLIC_BASE_URL', () => {
    const signature = twilioSignature(TOKEN, `${PUBLIC}${PATH}`, params);
    expect(webhook({ publicBaseUrl: PUBLIC }).hook.isAuthentic(PATH, params, signature)).toBe(false);
    expect(webhook({ authToken: TOKEN }).hook.isAuthentic(PATH, params, signature)).toBe(false);
  });
});

describe('SmsStatusWebhook.apply', () => {
  it("records Twilio's statuses as ours on the SMS channel, with ErrorCode as the error", async () => {
    const { hook, recorded } = webhook();
    await hook.apply({ MessageSid: 'SM1', MessageStatus: 'sending' }, 'd-1');
    await hook.apply({ MessageSid: 'SM1', MessageStatus: 'sent' }, 'd-1');
    await hook.apply({ MessageSid: 'SM1', MessageStatus: 'undelivered', ErrorCode: '30003' }, 'd-1');
    await hook.apply({ MessageSid: 'SM2', MessageStatus: 'failed' }, undefined);
    expect(recorded.map((r) => [r.sid, r.delivery, r.channel, r.update.status, r.update.error?.code])).toEqual([
      ['SM1', 'd-1', 'SMS', 'queued', undefined],
      ['SM1', 'd-1', 'SMS', 'sent', undefined],
      ['SM1', 'd-1', 'SMS', 'undelivered', '30003'],
      ['SM2', undefined, 'SMS', 'failed', 'failed'],
    ]);
  });

  it('ignores statuses that say nothing of an outbound message, and names no map lookup can inherit', async () => {
    const { hook, recorded } = webhook();
    expect(await hook.apply({ MessageSid: 'SM1', MessageStatus: 'received' }, 'd-1')).toEqual({
      received: 1,
      applied: 0,
      unchanged: 0,
      unknown: 0,
      ignored: 1,
    });
    for (const inherited of ['constructor', '__proto__', 'toString']) {
      expect(await hook.apply({ MessageSid: 'SM1', MessageStatus: inherited }, 'd-1')).toMatchObject({ ignored: 1 });
    }
    expect(recorded).toEqual([]);
  });
});
