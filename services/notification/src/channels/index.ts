import type { NotificationConfig } from '../config.js';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { EmailTransport } from './email.js';
import { HttpClient } from './http.js';
import { sandboxFor } from './sandbox.js';
import { TelegramTransport, type TelegramMemory } from './telegram.js';
import type { Transport } from './transport.js';
import { twilioTransport } from './twilio.js';
import { whatsAppTransport, type MessengerSessions } from './whatsapp.js';

export type Transports = Record<NotificationChannel, Transport>;

/** Each channel's recipients, from its comma-separated setting. */
export function recipientsFromConfig(config: NotificationConfig): Record<NotificationChannel, string[]> {
  return {
    CHAT_APP: config.CHAT_APP_CHAT_IDS,
    EMAIL: config.EMAIL_TO,
    SMS: config.SMS_TO,
    MESSENGER_APP: config.MESSENGER_APP_TO,
  };
}

/**
 * The real transport of every channel whose credentials are set, the sandbox for the others.
 * `close()` releases their connections (the HTTP pool, the SMTP pool). `kept.memory` keeps what
 * the transports must not forget: Telegram's chats that moved and parts of split messages sent,
 * WhatsApp users' customer service windows, and both pacing calendars.
 */
export function transportsFromConfig(
  config: NotificationConfig,
  now: () => number,
  kept: { memory: TelegramMemory & MessengerSessions; logger?: Logger },
): { transports: Transports; close: () => Promise<void> } {
  const http = new HttpClient(config.PROVIDER_TIMEOUT_MS);
  const sandbox = {
    chatAppBaseUrl: config.CHAT_APP_BASE_URL,
    smsBaseUrl: config.SMS_BASE_URL,
    smsFrom: config.SMS_FROM,
    messengerAppBaseUrl: config.MESSENGER_APP_BASE_URL,
    messengerAppApiVersion: config.MESSENGER_APP_API_VERSION,
    emailFrom: config.EMAIL_FROM,
  };
  const email =
    config.EMAIL_SMTP_URL && config.EMAIL_FROM
      ? new EmailTransport({ smtpUrl: config.EMAIL_SMTP_URL, from: config.EMAIL_FROM, timeoutMs: config.PROVIDER_TIMEOUT_MS })
      : undefined;
  const transports: Transports = {
    CHAT_APP: config.CHAT_APP_BOT_TOKEN
      ? new TelegramTransport({ baseUrl: config.CHAT_APP_BASE_URL, botToken: config.CHAT_APP_BOT_TOKEN }, http, kept.memory, now, kept.logger)
      : sandboxFor('CHAT_APP', sandbox),
    EMAIL: email ?? sandboxFor('EMAIL', sandbox),
    SMS:
      config.SMS_ACCOUNT_SID && config.SMS_AUTH_TOKEN && config.SMS_FROM
        ? twilioTransport(
            {
              baseUrl: config.SMS_BASE_URL,
              accountSid: config.SMS_ACCOUNT_SID,
              authToken: config.SMS_AUTH_TOKEN,
              from: config.SMS_FROM,
              publicBaseUrl: config.PUBLIC_BASE_URL,
            },
            http,
            now,
          )
        : sandboxFor('SMS', sandbox),
    MESSENGER_APP:
      config.MESSENGER_APP_TOKEN && config.MESSENGER_APP_PHONE_NUMBER_ID
        ? whatsAppTransport(
            {
              baseUrl: config.MESSENGER_APP_BASE_URL,
              apiVersion: config.MESSENGER_APP_API_VERSION,
              phoneNumberId: config.MESSENGER_APP_PHONE_NUMBER_ID,
              token: config.MESSENGER_APP_TOKEN,
            },
            http,
            now,
            {
              sessions: kept.memory,
              pacing: kept.memory.pacing,
              template:
                config.MESSENGER_APP_TEMPLATE === undefined
                  ? undefined
                  : {
                      name: config.MESSENGER_APP_TEMPLATE,
                      language: config.MESSENGER_APP_TEMPLATE_LANGUAGE,
                      parameters: config.MESSENGER_APP_TEMPLATE_PARAMETERS,
                    },
            },
          )
        : sandboxFor('MESSENGER_APP', sandbox),
  };
  return {
    transports,
    close: async () => {
      await email?.close();
      await http.close();
    },
  };
}

/** Says at start which channels have no recipients or no credentials, and that status webhooks are refused without an app secret. */
export function logChannelSetup(config: NotificationConfig, transports: Transports, logger: Logger): void {
  const recipients = recipientsFromConfig(config);
  const unaddressed = NOTIFICATION_CHANNELS.filter((c) => recipients[c].length === 0);
  if (unaddressed.length > 0) logger.info({ channels: unaddressed }, 'no recipients configured for these channels: requests for them create no deliveries');
  const sandboxed = NOTIFICATION_CHANNELS.filter((c) => transports[c].provider === 'sandbox');
  if (sandboxed.length > 0) logger.info({ channels: sandboxed }, 'no credentials for these channels: their deliveries go to the sandbox (recorded, not sent)');
  if (config.MESSENGER_APP_APP_SECRET === undefined) {
    // A warning where real WhatsApp messages go out (their status updates and replies are lost); on the sandbox, a note.
    const level = transports.MESSENGER_APP.provider === 'sandbox' ? 'info' : 'warn';
    logger[level]('MESSENGER_APP_APP_SECRET is not set: POST /webhooks/messenger_app refuses status updates');
  }
  if (transports.SMS.provider === 'twilio' && config.PUBLIC_BASE_URL === undefined) {
    logger.warn('PUBLIC_BASE_URL is not set: Twilio is asked for no status callbacks, so SMS deliveries stay queued');
  }
}
