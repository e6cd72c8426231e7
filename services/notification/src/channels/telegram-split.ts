/**
 * A long Telegram message as several: sendMessage takes "1-4096 characters after entities
 * parsing" (https://core.telegram.org/bots/api#sendmessage), so a longer text goes as parts of at
 * most 4,096 visible characters each, cut at the last line break that fits (a line longer than
 * the limit is cut at the limit). Each part is valid HTML on its own: the tags open at a cut are
 * closed at the end of the part and opened again at the start of the next.
 */
import { escapeHtml, TELEGRAM_MAX_TEXT, toTelegramHtml, type Content } from '../render.js';

/** A tag, an entity (one visible character), a surrogate pair (two UTF-16 units, never split) or one character. */
const TOKEN = /<(\/?)([a-z-]+)[^>]*>|&(?:lt|gt|amp|quot|#\d+|#x[0-9a-f]+);|[\ud800-\udbff][\udc00-\udfff]|[\s\S]/gi;

interface Open {
  name: string;
  markup: string;
}

interface Cut {
  /** Index in `pieces` of the line break the cut drops. */
  at: number;
  /** Visible characters before it. */
  visible: number;
  /** The tags open there. */
  open: Open[];
}

const closing = (open: Open[]): string =>
  open
    .map((o) => `</${o.name}>`)
    .reverse()
    .join('');
const reopening = (open: Open[]): string => open.map((o) => o.markup).join('');

/** Whether a part shows anything: Telegram refuses a text that is empty once tags are parsed. */
function showsText(part: string): boolean {
  return part.replace(/<[^>]*>/g, '').trim().length > 0;
}

/**
 * Splits Telegram HTML, as `toTelegramHtml` writes it (well nested, `<`, `>`, `&` escaped), into
 * parts of at most `maxVisible` visible characters (UTF-16 units, as Telegram counts).
 */
export function splitTelegramHtml(html: string, maxVisible = TELEGRAM_MAX_TEXT): string[] {
  const parts: string[] = [];
  let pieces: string[] = [];
  let visible = 0;
  let open: Open[] = [];
  let lastBreak: Cut | undefined;

  const cut = (): void => {
    if (lastBreak) {
      const { at, open: openThere } = lastBreak;
      let end = at;
      while (end > 0 && pieces[end - 1] === '\n') end -= 1; // a blank line before the cut ends nothing
      parts.push(pieces.slice(0, end).join('') + closing(openThere));
      // After the last line break there is no other: what follows it starts the next part.
      pieces = [reopening(openThere), ...pieces.slice(at + 1)];
      visible -= lastBreak.visible + 1;
    } else {
      parts.push(pieces.join('') + closing(open));
      pieces = [reopening(open)];
      visible = 0;
    }
    lastBreak = undefined;
  };

  for (const m of html.matchAll(TOKEN)) {
    const token = m[0];
    if (m[2] !== undefined) {
      const name = m[2].toLowerCase();
      if (m[1]) {
        const at = open.map((o) => o.name).lastIndexOf(name);
        if (at >= 0) open = open.slice(0, at);
      } else {
        open = [...open, { name, markup: token }];
      }
      pieces.push(token);
      continue;
    }
    const width = token.length === 2 && !token.startsWith('&') ? 2 : 1;
    while (visible + width > maxVisible) cut();
    if (token === '\n') lastBreak = { at: pieces.length, visible, open };
    pieces.push(token);
    visible += width;
  }
  parts.push(pieces.join(''));
  return parts.filter(showsText);
}

/** The whole sendMessage text of a message, not cut: the subject as a bold first line, then the body in Telegram's HTML. */
export function telegramWholeText({ message, contentType, subject }: Content): string {
  if (contentType === 'html') return toTelegramHtml(`${subject ? `<b>${escapeHtml(subject)}</b><br>` : ''}${message}`, Number.POSITIVE_INFINITY);
  return `${subject ? `<b>${escapeHtml(subject)}</b>\n` : ''}${escapeHtml(message)}`;
}

/** The texts of the messages one notification makes on Telegram: one, or several when it is longer than sendMessage takes. */
export function telegramParts(content: Content): string[] {
  return splitTelegramHtml(telegramWholeText(content));
}
