import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitTelegramHtml, telegramParts } from '../src/channels/telegram-split.js';
import { toTelegramHtml } from '../src/render.js';
import { parseTelegramHtml } from './fakes.js';

/** The visible text of a part as Telegram parses it (the fake's parser: an entity shows as one `?`). */
function visible(part: string): string {
  const parsed = parseTelegramHtml(part);
  if ('error' in parsed) throw new Error(`${parsed.error} in ${part}`);
  return parsed.visible;
}

describe('splitting a long Telegram message', () => {
  it('leaves a message within the limit whole', () => {
    expect(splitTelegramHtml('<b>Fill</b>\nEUR_USD long', 4096)).toEqual(['<b>Fill</b>\nEUR_USD long']);
  });

  it('cuts at the last line break that fits, dropping it', () => {
    const line = (c: string) => c.repeat(1000);
    const parts = splitTelegramHtml([line('a'), line('b'), line('c'), line('d'), line('e')].join('\n'));
    expect(parts).toEqual([[line('a'), line('b'), line('c'), line('d')].join('\n'), line('e')]);
  });

  it('cuts a line longer than the limit at the limit', () => {
    const parts = splitTelegramHtml(`short\n${'x'.repeat(10_000)}`);
    expect(parts).toEqual(['short', 'x'.repeat(4096), 'x'.repeat(4096), 'x'.repeat(10_000 - 8192)]);
  });

  it('closes the tags open at a cut and opens them again in the next part', () => {
    const parts = splitTelegramHtml('<b>one <a href="https://x.test/?a=1&amp;b=2">two\nthree</a> four</b>', 10);
    expect(parts).toEqual(['<b>one <a href="https://x.test/?a=1&amp;b=2">two</a></b>', '<b><a href="https://x.test/?a=1&amp;b=2">three</a> four</b>']);
  });

  it('counts an entity as one character and never splits a surrogate pair', () => {
    expect(splitTelegramHtml('&amp;'.repeat(4096))).toHaveLength(1);
    const parts = splitTelegramHtml(`a${'😀'.repeat(3)}`, 4);
    expect(parts).toEqual(['a😀', '😀😀']);
  });

  it('drops a part that would show nothing', () => {
    expect(splitTelegramHtml(`${'a'.repeat(5)}\n\n\n\n${'b'.repeat(5)}`, 5)).toEqual(['aaaaa', 'bbbbb']);
  });

  it('renders the whole message, subject first, before splitting', () => {
    const parts = telegramParts({ message: `${'x'.repeat(5000)}`, contentType: 'text', subject: 'S&P' });
    expect(parts[0]).toBe('<b>S&amp;P</b>');
    expect(parts.slice(1).map((p) => p.length)).toEqual([4096, 5000 - 4096]);
  });

  it('keeps every part valid and within the limit and loses no text but the line breaks it cuts at', () => {
    const piece = fc.oneof(
      fc.constantFrom('<b>', '</b>', '<i>', '</i>', '<a href="https://x.test">', '</a>', '<pre>', '</pre>', '<br>', '<p>', '</p>', '\n', '&amp;', '<', '😀'),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), fc.integer({ min: 8, max: 60 }), (pieces, max) => {
        const whole = toTelegramHtml(pieces.join(''), Number.POSITIVE_INFINITY);
        const parts = splitTelegramHtml(whole, max);
        for (const part of parts) expect(visible(part).length).toBeLessThanOrEqual(max);
        const text = (s: string) => s.replace(/\s/g, '');
        expect(text(parts.map(visible).join(''))).toBe(text(visible(whole)));
      }),
      { numRuns: 300 },
    );
  });
});
