import type { NotificationChannel } from '@fxdesk/schemas';
import { emailMessage, type EmailMessage } from './email.js';
import { telegramRequests } from './telegram.js';
import type { OutboundMessage, ProviderRequest, SendResult, Transport } from './transport.js';
import { twilioRequest } from './twilio.js';
import { whatsappRequest } from './whatsapp.js';

/**
 * The transport of a channel whose credentials are unset: it sends nothing and records the exact
 * request the real transport would have sent (built by the same code), with placeholders where
 * the credentials go. The delivery ends `sent`, provider `sandbox`.
 */
export class SandboxTransport implements Transport {
  readonly provider = 'sandbox' as const;

  /** A split Telegram message records one request per part. */
  constructor(private readonly build: (message: OutboundMessage) => ProviderRequest | ProviderRequest[] | EmailMessage) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    return { provider: this.provider, providerMessageId: `sandbox-${message.deliveryId}`, sandboxRequest: this.build(message) };
  }
}

export interface SandboxSettings {
  chatAppBaseUrl: string;
  smsBaseUrl: string;
  smsFrom: string | undefined;
  messengerAppBaseUrl: string;
  messengerAppApiVersion: string;
  emailFrom: string | undefined;
}

/** The sandbox of one channel, building requests exactly as its real transport does. */
export function sandboxFor(channel: NotificationChannel, s: SandboxSettings): SandboxTransport {
  switch (channel) {
    case 'CHAT_APP':
      return new SandboxTransport((m) => {
        const requests = telegramRequests({ baseUrl: s.chatAppBaseUrl, botToken: '<CHAT_APP_BOT_TOKEN>' }, m);
        return requests.length === 1 ? (requests[0] as ProviderRequest) : requests;
      });
    case 'SMS':
      return new SandboxTransport((m) => {
        const req = twilioRequest({ baseUrl: s.smsBaseUrl, accountSid: '<SMS_ACCOUNT_SID>', authToken: '', from: s.smsFrom ?? '<SMS_FROM>' }, m);
        return { ...req, headers: { ...req.headers, authorization: 'Basic <SMS_ACCOUNT_SID:SMS_AUTH_TOKEN>' } };
      });
    case 'MESSENGER_APP':
      return new SandboxTransport((m) =>
        whatsappRequest(
          {
            baseUrl: s.messengerAppBaseUrl,
            apiVersion: s.messengerAppApiVersion,
            phoneNumberId: '<MESSENGER_APP_PHONE_NUMBER_ID>',
            token: '<MESSENGER_APP_TOKEN>',
          },
          m,
        ),
      );
    case 'EMAIL':
      return new SandboxTransport((m) => emailMessage(s.emailFrom ?? 'fxdesk@localhost', m));
  }
}
