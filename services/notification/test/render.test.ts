import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { telegramWholeText } from '../src/channels/telegram-split.js';
import { htmlToText, plainText, toTelegramHtml, truncate } from '../src/render.js';
import { applyPlatformUpdate, type TrackedState } from '../src/status.js';
import { parseTelegramHtml } from './fakes.js';

const pieces = [
  '<b>',
  '</b>',
  '<strong>',
  '</strong>',
  '<i>',
  '</i>',
  '<em>',
  '<u>',
  '</u>',
  '<s>',
  '<del>',
  '</del>',
  '<code>',
  '</code>',
  '<pre>',
  '</pre>',
  '<pre><code class="language-python">',
  '</code></pre>',
  '<a href="https://example.com/?a=1&b=2">',
  '</a>',
  '<a href="javascript:alert(1)">',
  '<blockquote>',
  '<blockquote expandable>',
  '</blockquote>',
  '<span class="tg-spoiler">',
  '</span>',
  '<tg-spoiler>',
  '</tg-spoiler>',
  '<span>',
  '<div>',
  '</div>',
  '<p>',
  '</p>',
  '<br>',
  '<br/>',
  '<h2>',
  '</h2>',
  '<ul>',
  '<li>',
  '<script>alert(1)</script>',
  '<style>b{}</style>',
  '<!-- c -->',
  '<img src=x>',
  '&amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&nbsp;',
  '&#128512;',
  '&#xD800;',
  '&bogus;',
  '<',
  '>',
  '&',
  '"',
  'EUR_USD',
  ' ',
  '\n',
  '😀',
  'x'.repeat(50),
];
const htmlArb = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((p) => p.join(''));

/** Whether well-formed Telegram HTML opens some tag while the same tag is open. */
function nestsATagInItself(html: string): boolean {
  const open: string[] = [];
  for (const [, slash, name] of html.matchAll(/<(\/?)([a-z-]+)/g)) {
    if (slash) open.pop();
    else if (open.includes(name as string)) return true;
    else open.push(name as string);
  }
  return false;
}

describe('Telegram HTML', () => {
  it('keeps the supported tags, maps their aliases and drops the rest with their text kept', () => {
    expect(toTelegramHtml('<strong>a</strong> <em>b</em> <ins>c</ins> <strike>d</strike> <span class="tg-spoiler">e</span> <font>f</font>')).toBe(
      '<b>a</b> <i>b</i> <u>c</u> <s>d</s> <tg-spoiler>e</tg-spoiler> f',
    );
  });

  it('escapes <, > and & in text and keeps safe links only', () => {
    expect(toTelegramHtml('1 < 2 &amp; 3 > 2 <a href="https://x.io/?a=1&amp;b=2">x</a> <a href="javascript:1">y</a>')).toBe(
      '1 &lt; 2 &amp; 3 &gt; 2 <a href="https://x.io/?a=1&amp;b=2">x</a> y',
    );
  });

  it('closes tags in order and never nests inside code or pre', () => {
    expect(toTelegramHtml('<b><i>x</b> <code><b>y</b></code> <pre><code class="language-js">z</code></pre>')).toBe(
      '<b><i>x</i></b> <code>y</code> \n<pre><code class="language-js">z</code></pre>',
    );
  });

  it('drops script and style content and turns blocks into line breaks', () => {
    expect(toTelegramHtml('<p>a</p><script>bad()</script><p>b<br>c</p><ul><li>one</li><li>two</li></ul>')).toBe('a\n\nb\nc\n\n• one\n• two');
  });

  it('cuts the visible text to 4096 characters, closing what is open', () => {
    const out = toTelegramHtml(`<b>${'&amp;'.repeat(5000)}</b>`);
    const parsed = parseTelegramHtml(out);
    expect('visible' in parsed && parsed.visible.length).toBe(4096);
    expect(out.endsWith('…</b>')).toBe(true);
  });

  it('makes the subject a bold first line of text messages', () => {
    expect(telegramWholeText({ message: 'a < b', contentType: 'text', subject: 'S&P' })).toBe('<b>S&amp;P</b>\na &lt; b');
  });

  it('opens a tag once however deeply the input nests it', () => {
    expect(toTelegramHtml(`${'<b>'.repeat(21_845)}x`)).toBe('<b>x</b>');
  });

  it('keeps the outer tag open past the close of a repeated inner one', () => {
    expect(toTelegramHtml('<b>a<strong>b</strong>c</b>d <pre>e<pre>f</pre>g</pre>')).toBe('<b>abc</b>d \n<pre>ef\ng</pre>');
  });

  it('never opens a tag inside itself, so at most the nine Telegram tags are open at once, whatever the input', () => {
    fc.assert(
      fc.property(htmlArb, (html) => {
        expect(nestsATagInItself(toTelegramHtml(html))).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('drops an unterminated <!… or <?… to the end of the message, as HTML does', () => {
    expect(toTelegramHtml('a <!b c')).toBe('a');
    expect(toTelegramHtml('a <?b c')).toBe('a');
  });

  it('always yields markup Telegram parses, within the limit, whatever the input', () => {
    fc.assert(
      fc.property(htmlArb, fc.integer({ min: 5, max: 4096 }), (html, max) => {
        const out = toTelegramHtml(html, max);
        const parsed = parseTelegramHtml(out);
        expect(parsed).not.toHaveProperty('error');
        expect((parsed as { visible: string }).visible.length).toBeLessThanOrEqual(max);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('plain text', () => {
  it('turns HTML into readable text', () => {
    expect(htmlToText('<h1>Fill</h1><p>EUR_USD <b>1.08</b>&nbsp;&amp; <a href="https://x.io">chart</a></p><ul><li>a</li><li>b</li></ul>')).toBe(
      'Fill\n\nEUR_USD 1.08 & chart (https://x.io)\n\n• a\n• b',
    );
  });

  it('drops an unterminated <!… or <?… to the end of the message, as HTML does', () => {
    expect(htmlToText('a <!b c')).toBe('a');
    expect(htmlToText('a <?b c')).toBe('a');
  });

  it('prepends the subject and cuts to the limit without splitting a surrogate pair', () => {
    expect(plainText({ message: 'body', contentType: 'text', subject: 'S' }, 100)).toBe('S\nbody');
    expect(truncate('ab😀', 3)).toBe('ab…');
    expect(truncate(`${'x'.repeat(10)}`, 4)).toBe('xxx…');
  });
});

describe('platform status updates', () => {
  const base: TrackedState = { status: 'sent', error: null, sentAt: 1000, deliveredAt: null, readAt: null };

  it('moves forward: sent → delivered → read', () => {
    const delivered = applyPlatformUpdate(base, { status: 'delivered', at: 2000 });
    expect(delivered).toMatchObject({ status: 'delivered', deliveredAt: 2000 });
    expect(applyPlatformUpdate(delivered as TrackedState, { status: 'read', at: 3000 })).toMatchObject({ status: 'read', deliveredAt: 2000, readAt: 3000 });
  });

  it('sets deliveredAt from a read that comes first', () => {
    expect(applyPlatformUpdate(base, { status: 'read', at: 3000 })).toMatchObject({ status: 'read', deliveredAt: 3000, readAt: 3000 });
  });

  it('never moves backwards and ignores a failure after delivery', () => {
    const read: TrackedState = { ...base, status: 'read', deliveredAt: 2000, readAt: 3000 };
    expect(applyPlatformUpdate(read, { status: 'delivered', at: 2500 })).toBeNull();
    expect(applyPlatformUpdate(read, { status: 'sent', at: 500 })).toBeNull();
    expect(applyPlatformUpdate(read, { status: 'failed', at: 4000 })).toBeNull();
  });

  it('fails a sent message, and lets a later device receipt win over the failure', () => {
    const failed = applyPlatformUpdate(base, { status: 'failed', at: 2000, error: { code: '131026', message: 'undeliverable' } });
    expect(failed).toMatchObject({ status: 'failed', error: { code: '131026' } });
    expect(applyPlatformUpdate(failed as TrackedState, { status: 'sent', at: 2100 })).toBeNull();
    expect(applyPlatformUpdate(failed as TrackedState, { status: 'delivered', at: 2200 })).toMatchObject({ status: 'delivered', error: { code: '131026' } });
  });

  it('is monotonic for any sequence of reports', () => {
    const rank = { pending: 0, sending: 1, queued: 1.5, sent: 2, failed: 2, undelivered: 2, delivered: 3, read: 4 } as const;
    fc.assert(
      fc.property(
        fc.array(fc.record({ status: fc.constantFrom('sent', 'delivered', 'read', 'failed'), at: fc.integer({ min: 1, max: 10_000 }) }), { maxLength: 12 }),
        (updates) => {
          let state: TrackedState = base;
          for (const u of updates) {
            const next = applyPlatformUpdate(state, u) ?? state;
            expect(rank[next.status]).toBeGreaterThanOrEqual(rank[state.status]);
            if (state.readAt !== null) expect(next.status).toBe('read');
            state = next;
          }
          if (state.status === 'read') expect(state.deliveredAt).not.toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });
});
