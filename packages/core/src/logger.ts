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
 * like a credential blanked, each of `secrets` (the configured keys) blanked wherever it appears,
 * then cut to `maxLength` (after blanking, so a cut never leaves part of a secret).
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
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    out = out.split(secret).join(REDACTED).split(encodeURIComponent(secret)).join(REDACTED);
  }
  return out.slice(0, maxLength);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
