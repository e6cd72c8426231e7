import type { NotificationChannel, NotificationContentType, NotificationProvider, ProviderError } from '@fxdesk/schemas';

/** An HTTP request to a provider, exactly as sent (the sandbox records it). */
export interface ProviderRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** One delivery as a transport sends it: one message to one recipient. */
export interface OutboundMessage {
  deliveryId: string;
  channel: NotificationChannel;
  recipient: string;
  message: string;
  contentType: NotificationContentType;
  subject: string | null;
}

export interface SendResult {
  provider: NotificationProvider;
  /** The provider's id of the message (Telegram message_id, SMTP Message-ID, Twilio SID, WhatsApp wamid). */
  providerMessageId: string | null;
  /** Sandbox only: the exact request the real transport would have sent. */
  sandboxRequest?: unknown;
  /** The provider took it into its own send queue and has not sent it yet (Twilio's 201): its status callbacks tell the rest. */
  queued?: boolean;
}

/** A channel's way out: the real provider, or the sandbox that records instead of sending. */
export interface Transport {
  readonly provider: NotificationProvider;
  send(message: OutboundMessage): Promise<SendResult>;
  close?(): Promise<void>;
}

/**
 * A failed attempt. `retryable` attempts are tried again with backoff (network errors, timeouts,
 * 408, 429, 5xx, SMTP 4xx); the others fail the delivery at once with the provider's error.
 */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  readonly providerError: ProviderError;
  /** The provider's own minimum wait (`retry_after`, `Retry-After`), in ms. */
  readonly retryAfterMs: number | undefined;
  /**
   * The request may have reached the provider before the failure (a timeout or a broken
   * connection after it was written): sending again may duplicate the message.
   */
  readonly inDoubt: boolean;
  /**
   * False for a hold, not a failure: the message was not sent because the recipient's pacing (ours
   * or the provider's) asks for a wait. The delivery waits `retryAfterMs` and the attempt is given
   * back, so a busy recipient never uses up a delivery's attempts.
   */
  readonly spendsAttempt: boolean;

  constructor(providerError: ProviderError, options: { retryable: boolean; retryAfterMs?: number; inDoubt?: boolean; spendsAttempt?: boolean }) {
    super(`${providerError.code}: ${providerError.message}`);
    this.name = 'DeliveryError';
    this.providerError = providerError;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.inDoubt = options.inDoubt ?? false;
    this.spendsAttempt = options.spendsAttempt ?? true;
  }
}

/** A wait that is not a failure: the delivery goes back in the queue until `untilMs` and the attempt does not count. */
export function holdUntil(untilMs: number, now: number, error: ProviderError): DeliveryError {
  return new DeliveryError(error, { retryable: true, retryAfterMs: Math.max(0, untilMs - now), spendsAttempt: false });
}

/** Whether an HTTP status is worth another attempt: 408, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
