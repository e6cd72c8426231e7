import { secretValues } from '@fxdesk/core';
import { DeliveryError } from './channels/transport.js';

const REDACTED = '[redacted]';
const CREDENTIAL_PARAM = /key|token|secret|passw|pwd|auth|sig|credential/i;

/**
 * Every credential the config holds: the settings the kit counts as secret (isSecretName: the bot
 * token, Twilio's SID and auth token, WhatsApp's token and app secret, SMTP_URL, the API key…),
 * and the user, password and credential query parameters of every URL setting.
 */
export function configSecrets(config: object): string[] {
  const secrets = new Set(secretValues(config));
  for (const value of Object.values(config)) {
    if (typeof value !== 'string' || !URL.canParse(value) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
    const url = new URL(value);
    for (const part of [url.username, url.password]) {
      if (part.length > 0) secrets.add(part).add(safeDecode(part));
    }
    for (const [param, paramValue] of url.searchParams) {
      if (paramValue.length > 0 && CREDENTIAL_PARAM.test(param)) secrets.add(paramValue);
    }
  }
  return [...secrets].filter((s) => s.length > 0);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A pattern matching one character as sent or percent-encoded (UTF-8, hex digits in either case; a space also as `+`). */
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A pattern matching one character as sent, percent-encoded (UTF-8, hex digits in either case) or HTML-escaped; a space also as `+`. */
function characterPattern(char: string): string {
  const raw = char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const encoded = [...Buffer.from(char, 'utf8')]
    .map((byte) => `%${[...byte.toString(16).padStart(2, '0')].map((h) => (/[a-f]/.test(h) ? `[${h}${h.toUpperCase()}]` : h)).join('')}`)
    .join('');
  const forms = [raw, encoded, ...(char === ' ' ? ['\\+'] : []), ...(HTML_ESCAPES[char] === undefined ? [] : [HTML_ESCAPES[char]])];
  return `(?:${forms.join('|')})`;
}

/** The shortest start of a secret blanked where a text was cut short (…/bot1234567:AAH…). */
const MIN_CUT_PREFIX = 4;

/** A secret's first MIN_CUT_PREFIX characters or more, at the end of a text or before its `…`. */
function cutPattern(secret: string): string {
  const chars = [...secret].map(characterPattern);
  const rest = chars.slice(MIN_CUT_PREFIX).reduceRight((inner, c) => `(?:${c}${inner})?`, '');
  return `${chars.slice(0, MIN_CUT_PREFIX).join('')}${rest}(?=…?$)`;
}

/**
 * Blanks configured secrets in text a provider sent back. Providers echo what they were sent (an
 * Express 404 names the path, `Cannot POST /bot<token>/sendMessage`), as sent, percent-encoded or
 * HTML-escaped, so each character of a secret matches in any of those forms. Longer secrets are
 * matched first; a text cut short (the transports keep an excerpt of a long body) loses the start
 * of a secret at its end too.
 */
export class SecretRedactor {
  private readonly whole: RegExp | undefined;
  private readonly cut: RegExp | undefined;

  constructor(secrets: readonly string[]) {
    const unique = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
    this.whole = unique.length === 0 ? undefined : new RegExp(unique.map((s) => [...s].map(characterPattern).join('')).join('|'), 'g');
    const long = unique.filter((s) => [...s].length > MIN_CUT_PREFIX);
    this.cut = long.length === 0 ? undefined : new RegExp(long.map(cutPattern).join('|'));
  }

  text(text: string): string {
    const whole = this.whole === undefined ? text : text.replace(this.whole, REDACTED);
    return this.cut === undefined ? whole : whole.replace(this.cut, REDACTED);
  }

  /**
   * The one form a failed send takes before it is stored or logged: a DeliveryError whose code and
   * message hold no secret (anything else a transport threw becomes an `internal_error`).
   */
  failure(err: unknown): DeliveryError {
    if (!(err instanceof DeliveryError)) {
      return new DeliveryError({ code: 'internal_error', message: this.text(err instanceof Error ? err.message : String(err)) }, { retryable: true });
    }
    const error = err.providerError;
    return new DeliveryError(
      { ...error, code: this.text(error.code), message: this.text(error.message) },
      { retryable: err.retryable, retryAfterMs: err.retryAfterMs, inDoubt: err.inDoubt, spendsAttempt: err.spendsAttempt },
    );
  }

  /** An unexpected error as a log line may show it: its name, and its message and stack without secrets. */
  loggable(err: unknown): { type: string; message: string; stack?: string } {
    if (!(err instanceof Error)) return { type: typeof err, message: this.text(String(err)) };
    return { type: err.name, message: this.text(err.message), ...(err.stack === undefined ? {} : { stack: this.text(err.stack) }) };
  }
}
