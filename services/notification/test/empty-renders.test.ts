import { afterEach, describe, expect, it } from 'vitest';
import { rendersToNothing } from '../src/render.js';
import { startService, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a message that renders to nothing', () => {
  it('is refused at submission with 422, the envelope naming body.message, and nothing is stored', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111', SMS_TO: '+14155550100' });
    const res = await h.notify({
      message: '<p> </p><!-- only a comment --><img src="x.png"><br>',
      contentType: 'html',
      channels: ['CHAT_APP', 'SMS'],
      source: 'strategy',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json).toMatchObject({
      error: true,
      code: 'validation_error',
      details: [{ path: 'body.message', message: 'the HTML renders to no text' }],
    });
    expect(await h.store.countByStatus()).toEqual({});
  });

  it('is refused even when a subject would give the other channels a first line', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111' });
    const res = await h.notify({ message: '<script>alert(1)</script>', contentType: 'html', subject: 'Fill', channels: ['CHAT_APP'], source: 'strategy' });
    expect(res.statusCode).toBe(422);
  });

  it('is refused as text when it is white space only', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111' });
    const res = await h.notify({ message: ' \n\t ', channels: ['CHAT_APP'], source: 'strategy' });
    expect(res.statusCode).toBe(422);
    expect(res.json).toMatchObject({ details: [{ path: 'body.message', message: 'the text is empty or white space only' }] });
  });

  it('is refused before the skip rule, so a disabled service answers the same mistake the same way', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111', NOTIFICATIONS_ENABLED: 'false' });
    const res = await h.notify({ message: '<b></b>', contentType: 'html', channels: ['CHAT_APP'], source: 'strategy' });
    expect(res.statusCode).toBe(422);
  });

  it('is not a message whose markup holds text, nor a text message with markup-like characters', async () => {
    h = await startService({ CHAT_APP_CHAT_IDS: '111' });
    expect((await h.notify({ message: '<p><b>EUR_USD</b></p>', contentType: 'html', channels: ['CHAT_APP'], source: 's' })).statusCode).toBe(201);
    expect((await h.notify({ message: '<b></b>', channels: ['CHAT_APP'], source: 's' })).statusCode).toBe(201);
  });
});

describe('rendersToNothing', () => {
  it('reads HTML as its text and plain text as written', () => {
    expect(rendersToNothing({ message: '<div>&nbsp;</div>', contentType: 'html' })).toBe(true);
    expect(rendersToNothing({ message: '<style>p{}</style>', contentType: 'html' })).toBe(true);
    expect(rendersToNothing({ message: '<a href="https://x.example"></a>', contentType: 'html' })).toBe(false);
    expect(rendersToNothing({ message: '&amp;', contentType: 'html' })).toBe(false);
    expect(rendersToNothing({ message: '<br>', contentType: 'text' })).toBe(false);
  });
});
