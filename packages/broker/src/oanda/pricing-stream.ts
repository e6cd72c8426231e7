import { Pacer } from '@fxdesk/primitives';
import { buildConnector, Pool } from 'undici';
import { BrokerError } from '../errors.js';
import { pathWithQuery } from '../http-helpers.js';
import { errorFromResponse, errorFromTransport } from './error-mapping.js';
import { OANDA_NEW_CONNECTIONS_PER_SECOND } from './http-client.js';
import { StreamLineSchema } from './trading-wire.js';
import type { z } from 'zod';

export type StreamLine = z.infer<typeof StreamLineSchema>;

export interface PricingStreamOptions {
  /** The stream host: https://stream-fxpractice.oanda.com, https://stream-fxtrade.oanda.com, or a fake. */
  baseUrl: string;
  token: string;
  accountPath: string;
  /** Longest wait for the stream's response headers. */
  connectTimeoutMs: number;
  /** New TCP connections per second, on the wall clock (default 2). */
  newConnectionsPerSecond?: number;
}

/** One open pricing stream: `close()` ends it; `done` settles when it ends, by either side. */
export interface OpenPricingStream {
  close(): void;
  /** Resolves when the stream ends (closed by us, or by OANDA: `error` says why). */
  readonly done: Promise<{ error?: BrokerError }>;
}

/**
 * GET {stream host}/v3/accounts/{accountID}/pricing/stream?instruments=A,B&snapshot=true
 * (Pricing endpoints, "Get a stream of Account Prices starting from when the request is made"):
 * a chunked body of newline-delimited JSON, one PRICE (ClientPrice) or HEARTBEAT line each.
 * Each stream is a connection of its own, opened at most `newConnectionsPerSecond` a second
 * (Best Practices: "For new connections, we recommend you limit this to twice per second").
 * Silence is the caller's to judge (the heartbeats): the body never times out here.
 */
export class PricingStreamClient {
  private readonly pool: Pool;
  private readonly pathPrefix: string;

  constructor(private readonly options: PricingStreamOptions) {
    const url = new URL(options.baseUrl);
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    const newConnections = Pacer.within(options.newConnectionsPerSecond ?? OANDA_NEW_CONNECTIONS_PER_SECOND, 1000);
    const connect = buildConnector({ timeout: options.connectTimeoutMs });
    this.pool = new Pool(url.origin, {
      connections: 2,
      connect: (connectOptions, callback) => {
        newConnections.acquire().then(
          () => connect(connectOptions, callback),
          (err: Error) => callback(err, null),
        );
      },
      headersTimeout: options.connectTimeoutMs,
      bodyTimeout: 0,
    });
  }

  /** Opens a stream of `instruments`; resolves once OANDA answered 200 (lines then go to `onLine`), rejects with the BrokerError of a refusal. */
  async open(instruments: string[], onLine: (line: StreamLine) => void): Promise<OpenPricingStream> {
    const controller = new AbortController();
    const path = pathWithQuery(this.pathPrefix, `${this.options.accountPath}/pricing/stream`, { instruments: instruments.join(','), snapshot: 'true' });
    let response;
    try {
      response = await this.pool.request({
        method: 'GET',
        path,
        headers: { authorization: `Bearer ${this.options.token}`, 'accept-datetime-format': 'RFC3339' },
        signal: controller.signal,
      });
    } catch (err) {
      throw errorFromTransport(err, this.options.connectTimeoutMs);
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text().catch(() => '');
      throw errorFromResponse(response.statusCode, text, undefined);
    }
    const body = response.body;
    const done = (async (): Promise<{ error?: BrokerError }> => {
      let buffered = '';
      try {
        for await (const chunk of body) {
          buffered += (chunk as Buffer).toString('utf8');
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const text = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (text) onLine(parseLine(text));
          }
        }
        return controller.signal.aborted ? {} : { error: new BrokerError('disconnected', 'OANDA ended the pricing stream') };
      } catch (err) {
        if (controller.signal.aborted) return {};
        if (err instanceof BrokerError) return { error: err };
        return { error: new BrokerError('disconnected', `the pricing stream broke: ${err instanceof Error ? err.message : String(err)}`, { cause: err }) };
      }
    })();
    return { close: () => controller.abort(), done };
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

function parseLine(text: string): StreamLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new BrokerError('protocol', 'OANDA wrote a pricing stream line that is not JSON', { cause: err });
  }
  const parsed = StreamLineSchema.safeParse(json);
  if (!parsed.success)
    throw new BrokerError('protocol', `OANDA wrote a pricing stream line of an unexpected shape (${parsed.error.issues[0]?.message ?? 'unknown'})`);
  return parsed.data;
}
