/**
 * EMAIL through SMTP with nodemailer (https://nodemailer.com/smtp/, https://nodemailer.com/message/).
 *
 * One message per recipient, with an html part and a text alternative, `subject` as the subject
 * (else the first line of the text), and a Message-ID derived from the delivery id: a resend after
 * an attempt whose outcome is unknown carries the same Message-ID, which mail stores and clients
 * use to collapse the duplicate.
 *
 * Errors (https://nodemailer.com/errors): `responseCode` is the SMTP reply code. 4xx replies are
 * transient (RFC 5321 §4.2.1) and retried; 5xx replies are permanent and fail the delivery with
 * the server's reply; connection-level failures (ECONNECTION, ETIMEDOUT, ESOCKET, EDNS) are retried.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import { DeliveryError, type OutboundMessage, type SendResult, type Transport } from './transport.js';
import { emailParts, htmlToText, truncate } from '../render.js';

export interface EmailOptions {
  smtpUrl: string;
  from: string;
  timeoutMs: number;
}

export interface EmailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

export function emailMessage(from: string, message: OutboundMessage): EmailMessage {
  const parts = emailParts(message);
  const firstLine = (message.contentType === 'html' ? htmlToText(message.message) : message.message).split('\n')[0]?.trim() ?? '';
  return {
    from,
    to: message.recipient,
    subject: message.subject ?? (truncate(firstLine, 78) || 'Notification'),
    text: parts.text,
    html: parts.html,
    messageId: `<${message.deliveryId}@fxdesk.notification>`,
  };
}

const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS']);

interface SmtpError {
  code?: string;
  command?: string;
  response?: string;
  responseCode?: number;
  message?: string;
}

export function classifySmtpError(err: unknown): DeliveryError {
  const e = (err ?? {}) as SmtpError;
  const reply = e.response ?? e.message ?? String(err);
  if (typeof e.responseCode === 'number') {
    return new DeliveryError({ code: String(e.responseCode), message: reply.slice(0, 500) }, { retryable: e.responseCode >= 400 && e.responseCode < 500 });
  }
  const retryable = e.code === undefined || CONNECTION_CODES.has(e.code);
  const beforeMessage = e.command === 'CONN' || e.code === 'EDNS';
  return new DeliveryError(
    {
      code: e.code === 'ETIMEDOUT' ? 'timeout' : retryable ? 'network_error' : (e.code ?? 'smtp_error'),
      message: `${e.code ?? 'Error'}: ${reply}`.slice(0, 500),
    },
    { retryable, inDoubt: retryable && !beforeMessage },
  );
}

export class EmailTransport implements Transport {
  readonly provider = 'smtp' as const;
  private readonly transporter: Transporter;

  constructor(private readonly options: EmailOptions) {
    this.transporter = nodemailer.createTransport({
      ...parseConnectionUrl(options.smtpUrl),
      pool: true,
      maxConnections: 4,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
      logger: false,
    });
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    const mail = emailMessage(this.options.from, message);
    try {
      const info: unknown = await this.transporter.sendMail(mail);
      return { provider: this.provider, providerMessageId: (info as { messageId?: string }).messageId ?? mail.messageId };
    } catch (err) {
      throw classifySmtpError(err);
    }
  }

  async close(): Promise<void> {
    this.transporter.close();
  }
}
