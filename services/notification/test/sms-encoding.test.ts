import { describe, expect, it } from 'vitest';
import { gsm7LookAlikes, isGsm7, smsSegments } from '../src/channels/gsm7.js';
import { twilioRequest } from '../src/channels/twilio.js';
import type { OutboundMessage } from '../src/channels/transport.js';

const options = { baseUrl: 'https://api.twilio.com', accountSid: `AC${'0'.repeat(32)}`, authToken: 't', from: '+14155550000' };

function smsBody(message: Partial<OutboundMessage>): string {
  const req = twilioRequest(options, {
    deliveryId: 'd',
    channel: 'SMS',
    recipient: '+14155550100',
    message: '',
    contentType: 'text',
    subject: null,
    ...message,
  });
  return new URLSearchParams(req.body).get('Body') as string;
}

describe('smsSegments', () => {
  it('fits 160 GSM-7 characters in one segment and 153 in each of several', () => {
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSegments('a'.repeat(161)).segments).toBe(2);
    expect(smsSegments('a'.repeat(306)).segments).toBe(2);
    expect(smsSegments('a'.repeat(307)).segments).toBe(3);
  });

  it('counts an extension-table character as two septets and never splits one across segments', () => {
    expect(smsSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    // 306 septets would be two segments, but the escape pair cannot straddle the first boundary.
    expect(smsSegments(`${'a'.repeat(152)}€${'a'.repeat(152)}`)).toEqual({ encoding: 'GSM-7', units: 306, segments: 3 });
  });

  it('fits 70 UCS-2 units in one segment and 67 in each of several, a surrogate pair never split', () => {
    expect(smsSegments('·'.repeat(70))).toEqual({ encoding: 'UCS-2', units: 70, segments: 1 });
    expect(smsSegments('·'.repeat(71)).segments).toBe(2);
    expect(smsSegments('·'.repeat(134)).segments).toBe(2);
    expect(smsSegments('·'.repeat(135)).segments).toBe(3);
    expect(smsSegments(`${'Ж'.repeat(66)}😀${'Ж'.repeat(66)}`)).toEqual({ encoding: 'UCS-2', units: 134, segments: 3 });
  });

  it('makes the whole body UCS-2 for one character outside the alphabet', () => {
    expect(smsSegments(`${'a'.repeat(150)}•`)).toEqual({ encoding: 'UCS-2', units: 151, segments: 3 });
  });
});

describe('the SMS body stays GSM-7 when the message allows', () => {
  it('renders list items with a GSM-7 dash, so a long alert is billed as GSM-7 segments', () => {
    const html = `<ul>${'<li>EUR_USD long 1.0850</li>'.repeat(12)}</ul>`;
    const body = smsBody({ message: html, contentType: 'html' });
    // 12 lines of "- EUR_USD long 1.0850" (21 characters) and 11 line breaks.
    expect(body).toBe(Array.from({ length: 12 }, () => '- EUR_USD long 1.0850').join('\n'));
    expect(smsSegments(body)).toEqual({ encoding: 'GSM-7', units: 263, segments: 2 });
    // With the bullet the renderer draws on other channels, the same alert is UCS-2: twice the segments.
    expect(smsSegments(body.replaceAll('- ', '• '))).toEqual({ encoding: 'UCS-2', units: 263, segments: 4 });
  });

  it("turns the strategy's typographic punctuation into GSM-7 and leaves the rest as written", () => {
    const message = 'LONG EUR_USD at 1.0850\nstop 1.0820 · target 1.0910 · R:R 2\n“confluence” 3/4 — M15…';
    expect(smsBody({ message, subject: 'LONG EUR_USD (live)' })).toBe(
      'LONG EUR_USD (live)\nLONG EUR_USD at 1.0850\nstop 1.0820 - target 1.0910 - R:R 2\n"confluence" 3/4 - M15...',
    );
    expect(gsm7LookAlikes('Zürich 5 € ¥ £ [ok]')).toBe('Zürich 5 € ¥ £ [ok]');
  });

  it('cuts a long body with "..." rather than "…", inside 1600 characters', () => {
    const body = smsBody({ message: `${'a'.repeat(1000)} · ${'b'.repeat(1000)}` });
    expect(body).toHaveLength(1600);
    expect(body.endsWith('b...')).toBe(true);
    expect(smsSegments(body)).toEqual({ encoding: 'GSM-7', units: 1600, segments: 11 });
  });

  it('keeps a message that needs UCS-2 as it is: its own characters are not ours to replace', () => {
    const body = smsBody({ message: 'EUR_USD 🚀 long' });
    expect(body).toBe('EUR_USD 🚀 long');
    expect(isGsm7(body)).toBe(false);
  });

  it('renders table cells apart with spaces, not tabs (no tab in GSM-7)', () => {
    const body = smsBody({ message: '<table><tr><td>EUR_USD</td><td>1.0850</td></tr></table>', contentType: 'html' });
    expect(body).toBe('EUR_USD 1.0850');
    expect(isGsm7(body)).toBe(true);
  });
});
