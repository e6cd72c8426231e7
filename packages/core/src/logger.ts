import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Credential headers and settings never reach a log line, whatever a caller logs: pino blanks
 * these paths before writing (https://getpino.io/#/docs/redaction).
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-internal-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-internal-api-key"]',
  '*.apiKey',
  '*.token',
  '*.password',
  '*.secret',
  'config.API_KEY',
  'config.INTERNAL_API_KEY',
  'config.NOTIFICATION_API_KEY',
  'config.EXECUTION_API_KEY',
  'config.MARKET_DATA_API_KEY',
  'config.ACCOUNT_API_KEY',
  'config.OANDA_API_TOKEN',
  'config.METAAPI_TOKEN',
  'config.CTRADER_CLIENT_SECRET',
  'config.CTRADER_ACCESS_TOKEN',
  'config.CHAT_APP_BOT_TOKEN',
  'config.SMS_AUTH_TOKEN',
  'config.MESSENGER_APP_TOKEN',
  'config.MESSENGER_APP_APP_SECRET',
  'config.MESSENGER_APP_VERIFY_TOKEN',
  'config.EMAIL_SMTP_URL',
];

export function createLogger(options: { name: string; level: string; stream?: DestinationStream }): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.stream,
  );
}

/** Query parameter names that carry a credential (`api_key`, `access_token`, `hub.verify_token`, `sig`…). */
const CREDENTIAL_PARAM = /key|token|secret|passw|pwd|auth|sig|credential|session/i;

const REDACTED = '[redacted]';

/**
 * A request URL as a log line may show it: the value of every query parameter whose name looks
 * like a credential blanked, each of `secrets` (the configured keys) blanked wherever it appears
 * in the path or the query however it is percent-encoded, then cut to `maxLength` (after
 * blanking, so a cut never leaves part of a secret).
 */
export function loggableUrl(url: string, secrets: readonly string[] = [], maxLength = 200): string {
  let out = url;
  const q = url.indexOf('?');
  if (q >= 0) {
    const query = url
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return pair;
        const name = pair.slice(0, eq);
        return CREDENTIAL_PARAM.test(safeDecode(name)) ? `${name}=${REDACTED}` : pair;
      });
    out = `${url.slice(0, q)}?${query.join('&')}`;
  }
  return blankSecrets(out, secrets).slice(0, maxLength);
}

const PERCENT_ESCAPE = /^%[0-9A-Fa-f]{2}$/;

/**
 * The bytes of a URL as the server decodes it (`%2D`, `%2d` and `-` are the same byte), with
 * where each one's text starts and ends in the URL.
 */
function decodedBytes(url: string): { decoded: Buffer; starts: number[]; ends: number[] } {
  const bytes: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < url.length;) {
    const escape = url.slice(i, i + 3);
    const isEscape = PERCENT_ESCAPE.test(escape);
    const char = isEscape ? escape : String.fromCodePoint(url.codePointAt(i) as number);
    for (const byte of isEscape ? [parseInt(escape.slice(1), 16)] : Buffer.from(char, 'utf8')) {
      bytes.push(byte);
      starts.push(i);
      ends.push(i + char.length);
    }
    i += char.length;
  }
  return { decoded: Buffer.from(bytes), starts, ends };
}

/**
 * Blanks each secret in `url` wherever its bytes appear once the URL is percent-decoded, escaped
 * wholly, partly or not at all, in either case of hex; the rest of the URL stays as sent.
 */
function blankSecrets(url: string, secrets: readonly string[]): string {
  const wanted = secrets.filter((s) => s.length > 0).map((s) => Buffer.from(s, 'utf8'));
  if (wanted.length === 0) return url;
  const { decoded, starts, ends } = decodedBytes(url);
  const ranges: [number, number][] = [];
  for (const secret of wanted) {
    for (let at = decoded.indexOf(secret); at >= 0; at = decoded.indexOf(secret, at + 1)) {
      ranges.push([starts[at] as number, ends[at + secret.length - 1] as number]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of ranges) {
    if (end <= from) continue;
    if (start >= from) out += url.slice(from, start) + REDACTED;
    from = end;
  }
  return out + url.slice(from);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
