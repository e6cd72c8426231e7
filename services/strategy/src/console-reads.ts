import { ServiceError, type AccountClient, type ExecutionClient, type NotificationClient } from '@fxdesk/client';
import { ReadinessSchema } from '@fxdesk/core';
import type {
  AccountSummaryRead,
  ConsoleServices,
  DeliveryList,
  DeliveryListQuery,
  DownstreamService,
  ServiceHealth,
  SignalList,
  SignalListQuery,
  SignalRecord,
} from '@fxdesk/schemas';
import { request } from 'undici';
import type { StrategyConfig } from './config.js';
import { downstreamFailure, errors } from './errors.js';

export interface ConsoleReadsOptions {
  config: Pick<StrategyConfig, 'MARKET_DATA_URL' | 'EXECUTION_URL' | 'ACCOUNT_URL' | 'NOTIFICATION_URL' | 'DOWNSTREAM_TIMEOUT_MS'>;
  account?: AccountClient;
  execution?: ExecutionClient;
  notification?: NotificationClient;
}

/** The longest wait for a service's /health/ready: the page asks often, a service that slow is as good as down. */
const READINESS_TIMEOUT_MS = 2000;

/**
 * What the console reads from the other services through the strategy, with the strategy's own
 * keys (the browser never holds one): each downstream service's readiness, the account summary,
 * the execution service's orders and the notification service's deliveries. A read that fails
 * answers 502/503/504 (`downstreamFailure`); one of a service without a URL, 404 NOT_CONFIGURED.
 */
export class ConsoleReads {
  private readonly readinessTimeoutMs: number;

  constructor(private readonly o: ConsoleReadsOptions) {
    this.readinessTimeoutMs = Math.min(o.config.DOWNSTREAM_TIMEOUT_MS, READINESS_TIMEOUT_MS);
  }

  /** Every downstream service's /health/ready, read now, side by side. */
  async services(): Promise<ConsoleServices> {
    const { config } = this.o;
    const [market_data, execution, account, notification] = await Promise.all([
      this.readiness(config.MARKET_DATA_URL),
      this.readiness(config.EXECUTION_URL),
      this.readiness(config.ACCOUNT_URL),
      this.readiness(config.NOTIFICATION_URL),
    ]);
    return { market_data, execution, account, notification };
  }

  async account(): Promise<AccountSummaryRead> {
    const client = this.configured(this.o.account, 'account', 'ACCOUNT_URL');
    return client.summaryRead().catch((err: unknown) => Promise.reject(downstreamFailure(err, 'account')));
  }

  async orders(query: SignalListQuery): Promise<SignalList> {
    const client = this.configured(this.o.execution, 'execution', 'EXECUTION_URL');
    return client.listSignals(query).catch((err: unknown) => Promise.reject(downstreamFailure(err, 'execution')));
  }

  async order(signalId: string): Promise<SignalRecord> {
    const client = this.configured(this.o.execution, 'execution', 'EXECUTION_URL');
    return client.signal(signalId).catch((err: unknown) => {
      if (err instanceof ServiceError && err.status === 404) {
        return Promise.reject(errors.create('order_not_found', `the execution service has no order for signal ${signalId}`));
      }
      return Promise.reject(downstreamFailure(err, 'execution'));
    });
  }

  async deliveries(query: DeliveryListQuery): Promise<DeliveryList> {
    const client = this.configured(this.o.notification, 'notification', 'NOTIFICATION_URL');
    return client.deliveries(query).catch((err: unknown) => Promise.reject(downstreamFailure(err, 'notification')));
  }

  private configured<T>(client: T | undefined, service: Exclude<DownstreamService, 'market_data'>, setting: string): T {
    if (client === undefined) throw errors.create('not_configured', `the strategy has no ${setting}: it does not use the ${service} service`);
    return client;
  }

  /** A service's readiness as its /health/ready answers it (200 ready, 503 not ready; probes need no key). */
  private async readiness(baseUrl: string | undefined): Promise<ServiceHealth> {
    if (baseUrl === undefined) return { configured: false, reachable: false, ready: false, checks: {}, error: null };
    const url = new URL('health/ready', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    const timeoutMs = this.readinessTimeoutMs;
    let status: number;
    let body: unknown;
    try {
      const res = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
      status = res.statusCode;
      body = await res.body.json().catch(() => undefined);
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || /timeout/i.test((err as { code?: string }).code ?? ''));
      const why = timedOut ? `no answer within ${timeoutMs} ms` : `not reachable: ${(err as { code?: string }).code ?? (err as Error).message}`;
      return { configured: true, reachable: false, ready: false, checks: {}, error: why };
    }
    const readiness = ReadinessSchema.safeParse(body);
    if ((status !== 200 && status !== 503) || !readiness.success) {
      return { configured: true, reachable: true, ready: false, checks: {}, error: `GET /health/ready answered ${status} without a readiness record` };
    }
    const failing = Object.entries(readiness.data.checks).filter(([, check]) => !check.ok);
    const ready = status === 200 && readiness.data.status === 'ready';
    const error = ready
      ? null
      : `not ready: ${failing.map(([name, check]) => `${name}${check.detail ? ` (${check.detail})` : ''}`).join(', ') || 'no reason given'}`;
    return { configured: true, reachable: true, ready, checks: readiness.data.checks, error };
  }
}
