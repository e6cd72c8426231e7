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
