import type { ConsoleServices, DownstreamService, DownstreamState, ServiceHealth, StrategyStatus } from '@fxdesk/schemas';
import { isFxWeekend } from './market-time.js';

export type ServiceState = 'ok' | 'degraded' | 'down' | 'not_configured' | 'unknown';

/** One downstream service as the desk page shows it. */
export interface ServiceView {
  service: DownstreamService;
  label: string;
  state: ServiceState;
  /** The service's own readiness checks, or why it could not be read. */
  detail: string;
  /** While it is down: what stops, and what still works. */
  stops: string;
  stillWorks: string;
}

const SERVICES: Record<DownstreamService, { label: string; stops: string; stillWorks: string; notConfigured: string }> = {
  market_data: {
    label: 'Market data',
    stops: 'Live prices and new candles stop, so no new signals.',
    stillWorks: 'The charts up to the last candle, signal history, orders, deliveries and the account.',
    notConfigured: 'Prices come from the strategy’s own simulated market.',
  },
  execution: {
    label: 'Execution',
    stops: 'New signals cannot be sent as orders (they are marked failed), and the orders list cannot be read.',
    stillWorks: 'Prices, indicators, charts and new signals, deliveries and the account.',
    notConfigured: 'Signals are not sent anywhere (no EXECUTION_URL).',
  },
  account: {
    label: 'Account',
    stops: 'Balance, equity and margin cannot be read (the last known values are shown).',
    stillWorks: 'Prices, signals, orders and deliveries: trading goes on.',
    notConfigured: 'The paper account is shown (no ACCOUNT_URL).',
  },
  notification: {
    label: 'Notification',
    stops: 'Signals are not announced (they are retried), and the deliveries list cannot be read.',
    stillWorks: 'Prices, signals, orders and the account: trading goes on.',
    notConfigured: 'Signals are not announced (no NOTIFICATION_URL).',
  },
};

export const SERVICE_ORDER: DownstreamService[] = ['market_data', 'execution', 'account', 'notification'];

function checksDetail(health: ServiceHealth): string {
  const failing = Object.entries(health.checks).filter(([, c]) => !c.ok);
  const shown = failing.length > 0 ? failing : Object.entries(health.checks);
  return shown.map(([name, c]) => `${name.replace(/_/g, ' ')}: ${c.detail ?? (c.ok ? 'ok' : 'failing')}`).join('; ');
}

/**
 * One service's state from what the strategy saw when it last called it (`downstream`, kept live
 * by the event stream) and what its /health/ready said when the console last asked. A failing
 * call wins over an older readiness answer: it is what the desk lives with now.
 */
export function serviceView(service: DownstreamService, downstream: DownstreamState | undefined, health: ServiceHealth | undefined): ServiceView {
  const text = SERVICES[service];
  const base = { service, label: text.label, stops: text.stops, stillWorks: text.stillWorks };
  if (downstream?.state === 'not_configured' || (health && !health.configured)) return { ...base, state: 'not_configured', detail: text.notConfigured };
  if (downstream?.state === 'failing') {
    const why = downstream.last_error ? downstream.last_error.message : 'its last call failed';
    return { ...base, state: 'down', detail: why };
  }
  if (health && !health.reachable) return { ...base, state: 'down', detail: health.error ?? 'not answering' };
  if (health && !health.ready) return { ...base, state: 'degraded', detail: checksDetail(health) || (health.error ?? 'not ready') };
  if (health) return { ...base, state: 'ok', detail: checksDetail(health) || 'ready' };
  if (downstream?.state === 'ok') return { ...base, state: 'ok', detail: 'answering' };
  return { ...base, state: 'unknown', detail: 'not called yet' };
}

export function serviceViews(status: StrategyStatus | null, services: ConsoleServices | null): ServiceView[] {
  return SERVICE_ORDER.map((s) => serviceView(s, status?.downstream[s], services?.[s]));
}

/**
 * Whether the FX market is closed: the market-data service says so in its readiness, or (with
 * the strategy's own market) every pair has gone stale inside the FX weekend.
 */
export function isMarketClosed(status: StrategyStatus | null, services: ConsoleServices | null, pairStatuses: string[], nowMs: number): boolean {
  // The market-data service's `ticks` check opens with "market closed" while its market is.
  const ticks = services?.market_data.checks.ticks?.detail ?? '';
  if (ticks.startsWith('market closed')) return true;
  if (!status?.running || pairStatuses.length === 0) return false;
  return isFxWeekend(nowMs) && pairStatuses.every((s) => s === 'stale');
}
