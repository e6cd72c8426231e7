import { Agent, request } from 'undici';
import { DeliveryError } from './transport.js';

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
