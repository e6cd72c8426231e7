import type { Clock } from '@fxdesk/primitives';
import type { Logger } from 'pino';
import { errors } from './errors.js';
import type { LeaseHolder } from './redis-lease.js';

/**
 * Marks a request one replica forwarded to another, naming the sender: the receiver answers it
 * itself, so a request never travels further than one hop, even while the lease changes hands.
 */
export const FORWARDED_BY_HEADER = 'x-fxdesk-forwarded-by';

/** A request as this replica received it, to send on unchanged. */
export interface RelayedRequest {
  method: 'GET' | 'HEAD';
  /** Path and query, as received (`/v1/market-data/candles?symbol=EURUSD`). */
  url: string;
  /** Sent as the leader's x-request-id, so both replicas log the request under one id. */
  requestId: string;
}

/** The leader's answer, to relay as it came: status, the headers that matter, and the body untouched. */
export interface RelayedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface LeaderRelayOptions {
  /** Which replica holds the venue now, and its REPLICA_URL (read from Redis at each request). */
  leader: () => Promise<LeaseHolder | null>;
  /** This replica's id: a lease that still names it (it is letting go of the venue) has no other leader to ask. */
  self: string;
  /** The service's API key: replicas of one deployment share it. */
  apiKey: string;
  clock: Clock;
  /** Longest wait for the leader's whole answer. */
  timeoutMs: number;
  /** The Retry-After of a 503: about when another replica will have taken the venue (the lease's life). */
  retryAfterSeconds: number;
  logger: Logger;
}

/** The leader's headers a client may act on; the rest (x-request-id, content-length) are this replica's own. */
const RELAYED_HEADERS = ['content-type', 'retry-after'];

/**
 * Sends a request that needs the venue (candles) to the replica that holds it, over HTTP with
 * the service's own API key, and gives back its answer as it came, error envelopes included. A
 * leader this replica cannot ask (none, one without REPLICA_URL, one that does not answer in
 * time, one that refuses the key or answers something other than JSON) is 503
 * `broker_unavailable` with a Retry-After of the lease's life.
 */
export class LeaderRelay {
  private readonly options: LeaderRelayOptions;
  /** The failure last logged as a warning: the same one again goes to debug (a failover fails many requests alike). */
  private lastWarned: string | undefined;

  constructor(options: LeaderRelayOptions) {
    this.options = options;
  }

  async relay(request: RelayedRequest): Promise<RelayedAnswer> {
    const leader = await this.leader();
    const target = `${leader.address}${request.url}`;
    const controller = new AbortController();
    const timer = this.options.clock.setTimeout(() => controller.abort(), this.options.timeoutMs).unref();
    let status: number;
    let headers: Headers;
    let body: string;
    try {
      const res = await fetch(target, {
        method: request.method,
        headers: {
          accept: 'application/json',
          'x-api-key': this.options.apiKey,
          'x-request-id': request.requestId,
          [FORWARDED_BY_HEADER]: this.options.self,
        },
        redirect: 'error',
        signal: controller.signal,
      });
      status = res.status;
      headers = res.headers;
      body = await res.text();
    } catch (err) {
      const why = controller.signal.aborted ? `no answer within ${this.options.timeoutMs} ms` : describeFailure(err);
      throw this.unavailable(`the replica holding the venue connection (${leader.owner} at ${leader.address}) did not answer: ${why}`, err);
    } finally {
      this.options.clock.clearTimer(timer);
    }
    if (status === 401) {
      throw this.unavailable(
        `the replica holding the venue connection (${leader.owner}) refused this replica's API key: every replica must have the same API_KEY`,
      );
    }
    const type = headers.get('content-type') ?? '';
    if (!type.startsWith('application/json')) {
      throw this.unavailable(`${leader.address} (REPLICA_URL of ${leader.owner}) answered ${status} ${type || 'without a content type'}, not the service`);
    }
    this.lastWarned = undefined;
    const relayed: Record<string, string> = {};
    for (const name of RELAYED_HEADERS) {
      const value = headers.get(name);
      if (value !== null) relayed[name] = value;
    }
    return { status, headers: relayed, body };
  }

  /** The replica to ask, with its address; 503 when there is none to ask. */
  private async leader(): Promise<LeaseHolder & { address: string }> {
    let leader: LeaseHolder | null;
    try {
      leader = await this.options.leader();
    } catch (err) {
      throw this.unavailable(`Redis did not say which replica holds the venue connection (${describeFailure(err)})`, err);
    }
    if (leader === null || leader.owner === this.options.self) {
      throw this.unavailable('no replica holds the venue connection at the moment; one takes it over within the lease (INGEST_LEASE_MS)');
    }
    if (leader.address === undefined) {
      throw this.unavailable(
        `the replica holding the venue connection (${leader.owner}) publishes no REPLICA_URL, so this replica cannot forward the request to it`,
      );
    }
    return { owner: leader.owner, address: leader.address };
  }

  private unavailable(message: string, cause?: unknown): Error {
    if (message === this.lastWarned) this.options.logger.debug(message);
    else this.options.logger.warn(message);
    this.lastWarned = message;
    return errors.create('broker_unavailable', message, { cause, headers: { 'retry-after': String(this.options.retryAfterSeconds) } });
  }
}

/** A fetch failure as its cause names it (`ECONNREFUSED`), not undici's bare `fetch failed`. */
function describeFailure(err: unknown): string {
  const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
