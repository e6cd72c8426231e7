import { retryAfterMs } from '@fxdesk/primitives';
import type { NotificationProvider } from '@fxdesk/schemas';
import { Agent, request } from 'undici';
import { DeliveryError, isRetryableStatus, type OutboundMessage, type ProviderRequest, type SendResult, type Transport } from './transport.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  text: string;
}

/** Failures that happen before a request can have reached the server: safe to send again. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return typeof e?.name === 'string' ? e.name : 'Error';
}

/**
 * The providers' HTTP client: undici with a keep-alive pool, a deadline on every call
 * (connect, headers and body each within `timeoutMs`, and the whole call too), and network
 * failures turned into retryable DeliveryErrors that say whether the request may have landed.
 */
export class HttpClient {
  private readonly agent: Agent;

  constructor(private readonly timeoutMs: number) {
    this.agent = new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 30_000 });
  }

  async post(url: string, options: { headers: Record<string, string>; body: string }): Promise<HttpResponse> {
    try {
      const res = await request(url, {
        method: 'POST',
        headers: options.headers,
        body: options.body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, headers: res.headers, json, text };
    } catch (err) {
      const code = errorCode(err);
      const isTimeout = TIMEOUTS.has(code) || code === 'TimeoutError' || code === 'AbortError' || code === 'ETIMEDOUT';
      throw new DeliveryError(
        { code: isTimeout ? 'timeout' : 'network_error', message: `${code}: ${(err as Error).message ?? String(err)}`.slice(0, 500) },
        { retryable: true, inDoubt: !NEVER_SENT.has(code) },
      );
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** A short, safe excerpt of a body that is not the JSON a provider documents. */
export function bodyExcerpt(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * A channel whose provider takes one HTTP POST per message: `request` builds it exactly as sent
 * (the sandbox records the same), `read` turns the reply into the provider's id of the message or
 * throws the DeliveryError it means.
 */
export class HttpTransport implements Transport {
  constructor(
    readonly provider: NotificationProvider,
    private readonly http: HttpClient,
    private readonly request: (message: OutboundMessage) => ProviderRequest,
    private readonly read: (res: HttpResponse) => string | null,
  ) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    const req = this.request(message);
    const res = await this.http.post(req.url, { headers: req.headers, body: req.body });
    return { provider: this.provider, providerMessageId: this.read(res) };
  }
}

export function isSuccess(res: HttpResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

/**
 * The DeliveryError of a provider's refusal, with its own code (else the HTTP status): retried on
 * 408, 429 and 5xx and not before the reply's Retry-After, unless `options` knows better
 * (`inDoubt`: the provider may have acted on the request before it failed).
 */
export function providerRefusal(
  res: HttpResponse,
  error: { code: number | undefined; message: string },
  now: () => number,
  options: { retryable?: boolean; retryAfterMs?: number; inDoubt?: boolean } = {},
): DeliveryError {
  return new DeliveryError(
    { code: String(error.code ?? res.status), message: error.message, httpStatus: res.status },
    {
      retryable: options.retryable ?? isRetryableStatus(res.status),
      retryAfterMs: options.retryAfterMs ?? retryAfterMs(res.headers['retry-after'], now()),
      inDoubt: options.inDoubt,
    },
  );
}
