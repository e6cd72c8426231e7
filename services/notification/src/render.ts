/**
 * Turns a notification body into what each channel accepts: Telegram's HTML subset, plain text
 * for SMS and WhatsApp, html plus a text alternative for email. Bodies come from our own callers,
 * but nothing here trusts their markup: everything is re-tokenized and re-escaped.
 */
import type { NotificationContentType } from '@fxdesk/schemas';

interface Token {
  kind: 'text' | 'open' | 'close';
  /** Decoded text, or the lower-case tag name. */
  value: string;
  attrs?: Record<string, string>;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the entities HTML text commonly carries; unknown named entities stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,8});/g, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** Escapes text for HTML; Telegram requires exactly `<`, `>` and `&` to be replaced (and `"` in attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// Linear in the input: a failed tag match never scans past the next `<` (its attributes cannot
// begin with a name character, so the name is never re-split), and a comment, declaration or
// processing instruction always matches, running to the end when unterminated, as in HTML.
const TAG = /<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:[^<>a-zA-Z0-9-][^<>]*)?)>|<!--[\s\S]*?(?:-->|$)|<![^>]*(?:>|$)|<\?[^>]*(?:>|$)/g;
const ATTR = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const RAW_TEXT = new Set(['script', 'style', 'head', 'title', 'template']);

/** Lazily, so that a renderer that stops at its length limit never reads the rest. */
function* tokenize(html: string): Generator<Token> {
  let last = 0;
  let skipUntil: string | undefined;
  for (const m of html.matchAll(TAG)) {
    const index = m.index ?? 0;
    if (index > last && !skipUntil) yield { kind: 'text', value: decodeEntities(html.slice(last, index)) };
    last = index + m[0].length;
    const name = m[1]?.toLowerCase();
    if (!name) continue; // comment, doctype, processing instruction
    const closing = m[0][1] === '/';
    if (skipUntil) {
      if (closing && name === skipUntil) skipUntil = undefined;
      continue;
    }
    if (RAW_TEXT.has(name) && !closing) {
      skipUntil = name;
      continue;
    }
    const rest = closing ? '' : (m[2] ?? ''); // attributes, and the slash of a self-closing tag
    const attrs: Record<string, string> = {};
    if (rest) {
      for (const a of rest.matchAll(ATTR)) {
        attrs[(a[1] as string).toLowerCase()] = decodeEntities(a[2] ?? a[3] ?? a[4] ?? '');
      }
    }
    yield { kind: closing ? 'close' : 'open', value: name, attrs };
    if (rest && /\/\s*$/.test(rest)) yield { kind: 'close', value: name };
  }
  if (last < html.length && !skipUntil) yield { kind: 'text', value: decodeEntities(html.slice(last)) };
}

const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'ul',
  'ol',
  'table',
  'tr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'blockquote',
  'pre',
]);
const HEADING = /^h[1-6]$/;

/** Collects visible text, tracking what block breaks need without re-reading what it holds. */
class TextSink {
  readonly parts: string[] = [];
  visible = 0;
  private trailingNewlines = 0;

  get atLineStart(): boolean {
    return this.visible === 0 || this.trailingNewlines > 0;
  }

  text(piece: string, escape: (s: string) => string = (s) => s): void {
    if (piece.length === 0) return;
    this.parts.push(escape(piece));
    this.visible += piece.length;
    // Counted from the end: a regex anchored at the end would rescan a run of newlines from each of them.
    let trailing = 0;
    while (trailing < piece.length && piece.charCodeAt(piece.length - 1 - trailing) === 10) trailing += 1;
    this.trailingNewlines = trailing === piece.length ? this.trailingNewlines + trailing : trailing;
  }

  markup(tag: string): void {
    this.parts.push(tag);
  }

  /** The line breaks a block boundary needs: one, or a blank line, never more. */
  breaksFor(blank: boolean): string {
    if (this.visible === 0) return '';
    const want = blank ? 2 : 1;
    return this.trailingNewlines < want ? '\n'.repeat(want - this.trailingNewlines) : '';
  }

  toString(): string {
    return this.parts.join('');
  }
}

function collapse(text: string, inPre: boolean, atLineStart: boolean): string {
  if (inPre) return text;
  const collapsed = text.replace(/[ \t\r\n\f]+/g, ' ');
  return atLineStart ? collapsed.replace(/^ /, '') : collapsed;
}

function safeHref(href: string | undefined): string | undefined {
  if (!href) return undefined;
  const trimmed = href.trim();
  return /^(https?:|mailto:|tg:)/i.test(trimmed) ? trimmed : undefined;
}

/** Plain text from HTML: block elements become line breaks, list items bullets, links "text (url)". */
export function htmlToText(html: string): string {
  const sink = new TextSink();
  let pre = 0;
  let link: { href: string; start: number } | undefined;
  for (const t of tokenize(html)) {
    if (t.kind === 'text') {
      sink.text(collapse(t.value, pre > 0, sink.atLineStart));
    } else if (t.value === 'br') {
      if (t.kind === 'open') sink.text('\n');
    } else if (t.value === 'li') {
      if (t.kind === 'open') sink.text(`${sink.breaksFor(false)}• `);
    } else if (t.value === 'a') {
      if (t.kind === 'open') {
        const href = safeHref(t.attrs?.href);
        link = href ? { href, start: sink.parts.length } : undefined;
      } else if (link) {
        const text = sink.parts.slice(link.start).join('').trim();
        if (text !== link.href && text !== link.href.replace(/^mailto:/i, '')) sink.text(` (${link.href})`);
        link = undefined;
      }
    } else if (t.value === 'td' || t.value === 'th') {
      if (t.kind === 'close') sink.text('\t');
    } else if (BLOCK.has(t.value)) {
      if (t.value === 'pre') pre = Math.max(0, pre + (t.kind === 'open' ? 1 : -1));
      sink.text(sink.breaksFor(t.value === 'p' || HEADING.test(t.value)));
    }
  }
  // Spaces before a line break are matched from the start of their run only: anchored anywhere
  // else, a long run with no line break after it would be rescanned from each of its characters.
  return sink
    .toString()
    .replace(/(?<![ \t])[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\u00a0/g, ' ')
    .trim();
}

/** Whether a message body shows no text: empty or white space only, once HTML is reduced to text. */
export function rendersToNothing({ message, contentType }: Pick<Content, 'message' | 'contentType'>): boolean {
  return (contentType === 'html' ? htmlToText(message) : message).trim().length === 0;
}

/** Cuts text to `max` UTF-16 units (as Telegram, Twilio and WhatsApp count), ending in `ellipsis` when cut. */
export function truncate(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  let cut = max - ellipsis.length;
  // Never split a surrogate pair.
  if (cut > 0 && /[\ud800-\udbff]/.test(text[cut - 1] as string)) cut -= 1;
  return `${text.slice(0, cut)}${ellipsis}`;
}

/** Telegram's HTML: tag → the tag Telegram accepts (https://core.telegram.org/bots/api#html-style). */
const TELEGRAM_TAGS: Record<string, string> = {
  b: 'b',
  strong: 'b',
  i: 'i',
  em: 'i',
  u: 'u',
  ins: 'u',
  s: 's',
  strike: 's',
  del: 's',
  'tg-spoiler': 'tg-spoiler',
  code: 'code',
  pre: 'pre',
  a: 'a',
  blockquote: 'blockquote',
};
/** Entities that "can't contain each other" per the Bot API formatting rules (pre may hold one code). */
const TELEGRAM_EXCLUSIVE = new Set(['a', 'code', 'pre', 'blockquote']);

/** sendMessage takes "1-4096 characters after entities parsing". */
export const TELEGRAM_MAX_TEXT = 4096;

/**
 * Rewrites HTML into the subset Telegram's `parse_mode=HTML` accepts: the supported tags only
 * (b/strong, i/em, u/ins, s/strike/del, tg-spoiler and span.tg-spoiler, a href, code, pre with
 * an optional code.language-*, blockquote [expandable]), well nested, every other tag dropped
 * with its text kept, `<`, `>`, `&` escaped, and the visible text cut to `maxVisible` characters
 * with every open tag closed.
 */
export function toTelegramHtml(html: string, maxVisible = TELEGRAM_MAX_TEXT): string {
  const sink = new TextSink();
  // A tag opened inside itself adds nothing Telegram shows, so each is open at most once: the
  // stack never holds more than the nine tag names, and every look at it is constant work however
  // deep the input nests. `repeats` counts the opens skipped that way, so that their closes are too.
  const stack: string[] = [];
  const repeats = new Map<string, number>();
  let truncated = false;
  const budget = maxVisible - 1; // room for the ellipsis

  const text = (piece: string): void => {
    if (truncated || piece.length === 0) return;
    if (sink.visible + piece.length > budget) {
      sink.text(piece.slice(0, Math.max(0, budget - sink.visible)).replace(/[\ud800-\udbff]$/, ''), escapeHtml);
      sink.text('…');
      truncated = true;
      return;
    }
    sink.text(piece, escapeHtml);
  };
  const inside = (names: string[]) => stack.some((n) => names.includes(n));

  for (const t of tokenize(html)) {
    if (truncated) break;
    if (t.kind === 'text') {
      text(collapse(t.value, inside(['pre']), sink.atLineStart));
      continue;
    }
    if (t.value === 'br') {
      if (t.kind === 'open') text('\n');
      continue;
    }
    if (t.value === 'li') {
      if (t.kind === 'open') text(`${sink.breaksFor(false)}• `);
      continue;
    }
    let name: string | undefined = TELEGRAM_TAGS[t.value];
    if (t.value === 'span') {
      const isSpoiler = t.kind === 'open' ? (t.attrs?.class ?? '').split(/\s+/).includes('tg-spoiler') : stack.at(-1) === 'tg-spoiler';
      name = isSpoiler ? 'tg-spoiler' : undefined;
    } else if (HEADING.test(t.value)) {
      // Headings have no Telegram entity: a bold line of their own.
      if (t.kind === 'open') text(sink.breaksFor(true));
      name = 'b';
    } else if (!name) {
      if (BLOCK.has(t.value)) text(sink.breaksFor(t.value === 'p'));
      continue;
    }
    if (!name) continue;
    if (t.kind === 'close') {
      const at = stack.lastIndexOf(name);
      if (at < 0) continue;
      const repeated = repeats.get(name) ?? 0;
      if (repeated > 0) {
        repeats.set(name, repeated - 1);
      } else {
        while (stack.length > at) {
          const closed = stack.pop() as string;
          repeats.delete(closed); // a tag's repeats were inside it: they close with it
          sink.markup(`</${closed}>`);
        }
      }
      if (name === 'pre' || name === 'blockquote' || HEADING.test(t.value)) text(sink.breaksFor(false));
      continue;
    }
    if (stack.includes(name)) {
      repeats.set(name, (repeats.get(name) ?? 0) + 1);
      continue;
    }
    if (inside(['code', 'pre']) && !(name === 'code' && stack.at(-1) === 'pre')) continue; // nothing else nests in code or pre
    if (TELEGRAM_EXCLUSIVE.has(name) && inside([...TELEGRAM_EXCLUSIVE]) && !(name === 'code' && stack.at(-1) === 'pre')) continue;
    let markup = `<${name}>`;
    if (name === 'a') {
      const href = safeHref(t.attrs?.href);
      if (!href) continue;
      markup = `<a href="${escapeHtml(href)}">`;
    } else if (name === 'code' && stack.at(-1) === 'pre' && /^language-[\w+#-]{1,30}$/.test(t.attrs?.class ?? '')) {
      markup = `<code class="${t.attrs?.class}">`;
    } else if (name === 'blockquote' && t.attrs && 'expandable' in t.attrs) {
      markup = '<blockquote expandable>';
    }
    if (name === 'pre' || name === 'blockquote') text(sink.breaksFor(false));
    stack.push(name);
    sink.markup(markup);
  }
  while (stack.length > 0) sink.markup(`</${stack.pop()}>`);
  return sink.toString().trim();
}

export interface Content {
  message: string;
  contentType: NotificationContentType;
  subject?: string | null;
}

/**
 * Plain text for SMS and WhatsApp: the subject as a first line, HTML reduced to text, then
 * `adapt`ed to the channel's alphabet (SMS: GSM-7 look-alikes) and cut to `max` with `ellipsis`.
 */
export function plainText(
  { message, contentType, subject }: Content,
  max: number,
  { adapt = (text: string) => text, ellipsis = '…' }: { adapt?: (text: string) => string; ellipsis?: string } = {},
): string {
  const body = contentType === 'html' ? htmlToText(message) : message;
  return truncate(adapt(subject ? `${subject}\n${body}` : body), max, ellipsis);
}

/** The email parts: html as given (or the text, escaped, line breaks kept) and a text alternative. */
export function emailParts({ message, contentType }: Content): { html: string; text: string } {
  if (contentType === 'html') return { html: message, text: htmlToText(message) };
  return { html: `<div style="white-space:pre-wrap">${escapeHtml(message)}</div>`, text: message };
}
