import type { DeliveryEvent, DeliveryRecord, DeliveryStatus, OrderEvent, SignalRecord, SignalState, StrategySignal } from '@fxdesk/schemas';
import { Fragment } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ListState, MoreButton } from '../components/list-state.js';
import { NoSignal } from '../components/no-signal.js';
import { SignalTable, StatusBadge } from '../components/signal-table.js';
import { formatPrice, formatWhen, humanize, pairLabel } from '../format.js';
import { Link, navigate } from '../router.js';
import { ACTIVITY_TABS, routeHref, signalHref, type ActivityTab } from '../routes.js';
import { useDesk, useNow, type EventListener } from '../use-desk.js';
import { usePaged } from '../use-paged.js';

const PAGE = 25;
/** A burst of order or delivery events reads the list once. */
const REFRESH_AFTER_MS = 400;

const TAB_LABEL: Record<ActivityTab, string> = { signals: 'Signals', orders: 'Orders', deliveries: 'Deliveries' };
const ORDER_STATES: SignalState[] = ['filled', 'partially_filled', 'placed', 'rejected', 'unknown', 'processing'];
const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'sending', 'queued', 'sent', 'delivered', 'read', 'failed', 'undelivered'];

/** A text field of an order's request as submitted (the record keeps the submission as it came). */
function requestField(order: SignalRecord, name: string): string {
  const value = order.request[name];
  return typeof value === 'string' ? value : '';
}

/**
 * An order's tickets, each a word of its own (`order 1795871565142`): a narrow cell wraps between
 * tickets, never inside a number.
 */
function Tickets({ tickets }: { tickets: SignalRecord['tickets'] }) {
  const named = (['order', 'deal', 'position'] as const).filter((name) => tickets[name]);
  if (named.length === 0) return <>—</>;
  return (
    <>
      {named.map((name, i) => (
        <Fragment key={name}>
          {i > 0 && ' · '}
          <span class="word">
            {name} {tickets[name]}
          </span>
        </Fragment>
      ))}
    </>
  );
}

/** Runs `action` once, a moment after the last of a burst of calls. */
function useDebounced(action: () => void, delayMs: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(action);
  latest.current = action;
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  return () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), delayMs);
  };
}

/** Signal history, orders as the execution service recorded them, and notification deliveries; each row leads to its signal on the chart. */
export function ActivityPage({ tab }: { tab: ActivityTab }) {
  const { state, api, listen } = useDesk();
  const now = useNow(10_000);
  const [orderState, setOrderState] = useState<SignalState | ''>('');
  const [deliveryStatus, setDeliveryStatus] = useState<DeliveryStatus | ''>('');

  const signals = usePaged<StrategySignal>(
    async (cursor) => {
      const page = await api.signals({ limit: PAGE, cursor });
      return { items: page.signals, next: page.next_cursor };
    },
    (s) => s.signal_id,
    [api],
  );
  const orders = usePaged<SignalRecord>(
    async (cursor) => {
      const page = await api.orders({ limit: PAGE, cursor, state: orderState || undefined });
      return { items: page.signals, next: page.next_cursor };
    },
    (o) => o.signal_id,
    [api, orderState],
  );
  const deliveries = usePaged<DeliveryRecord>(
    async (cursor) => {
      const page = await api.deliveries({ limit: PAGE, cursor, status: deliveryStatus || undefined });
      return { items: page.items, next: page.nextCursor };
    },
    (d) => d.id,
    [api, deliveryStatus],
  );

  const refreshOrders = useDebounced(orders.refresh, REFRESH_AFTER_MS);
  const refreshDeliveries = useDebounced(deliveries.refresh, REFRESH_AFTER_MS);
  const onEvent = useRef<EventListener>(() => {});
  onEvent.current = (name, data) => {
    if (name === 'signal') signals.add(data as StrategySignal);
    if (name === 'order') {
      const event = data as OrderEvent;
      signals.patch(event.signal_id, (s) => ({ ...s, execution: event.execution }));
      refreshOrders();
    }
    if (name === 'delivery') {
      const event = data as DeliveryEvent;
      signals.patch(event.signal_id, (s) => ({ ...s, notification: event.notification }));
      refreshDeliveries();
    }
  };
  useEffect(() => listen((name, data) => onEvent.current(name, data)), [listen]);

  // What links an order or a delivery to its signal: the signal_id, the announcement's request id.
  const known = useMemo(() => {
    const all = [...state.signals, ...signals.items];
    return {
      byId: new Map(all.map((s) => [s.signal_id, s])),
      byRequest: new Map(all.filter((s) => s.notification.request_id).map((s) => [s.notification.request_id as string, s])),
      bySymbol: new Map(Object.values(state.pairs).map((p) => [p.symbol, p.instrument])),
    };
  }, [state.signals, state.pairs, signals.items]);

  const orderLink = (order: SignalRecord): string | null => {
    const signal = known.byId.get(order.signal_id);
    if (signal) return signalHref(signal);
    const instrument = known.bySymbol.get(requestField(order, 'symbol'));
    return instrument ? routeHref({ page: 'pair', instrument, timeframe: state.status?.timeframe ?? null, signalId: order.signal_id }) : null;
  };

  // The tab pattern: arrow keys move between the tabs (only the selected one is in the Tab order).
  const onTabKey = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = ACTIVITY_TABS[(ACTIVITY_TABS.indexOf(tab) + step + ACTIVITY_TABS.length) % ACTIVITY_TABS.length] as ActivityTab;
    navigate(routeHref({ page: 'activity', tab: next }), true);
    requestAnimationFrame(() => document.getElementById(`tab-${next}`)?.focus());
  };

  return (
    <div class="activity">
      <h1>Activity</h1>
      <div role="tablist" aria-label="Activity" class="tabs" onKeyDown={onTabKey}>
        {ACTIVITY_TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t}`}
            aria-selected={t === tab}
            aria-controls={`panel-${t}`}
            tabIndex={t === tab ? 0 : -1}
            onClick={() => navigate(routeHref({ page: 'activity', tab: t }), true)}
          >
            {TAB_LABEL[t]}
          </button>
        ))}
      </div>

      <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="panel">
        {tab === 'signals' && (
          <>
            <ListState list={signals} what="signals" />
            {signals.items.length > 0 ? <SignalTable signals={signals.items} label="Signal history" /> : !signals.loading && !signals.error && <NoSignal />}
            <MoreButton list={signals} what="signals" />
          </>
        )}

        {tab === 'orders' && (
          <>
            <label class="filter">
              State{' '}
              <select value={orderState} onChange={(e) => setOrderState(e.currentTarget.value as SignalState | '')}>
                <option value="">any</option>
                {ORDER_STATES.map((s) => (
                  <option key={s} value={s}>
                    {humanize(s)}
                  </option>
                ))}
              </select>
            </label>
            <ListState list={orders} what="orders" />
            {orders.items.length === 0 && !orders.loading && !orders.error && <p class="empty">No order yet: the execution service has recorded none.</p>}
            {orders.items.length > 0 && (
              <div class="scroll-x">
                <table class="grid cards orders" aria-label="Orders">
                  <thead>
                    <tr>
                      <th scope="col">Received</th>
                      <th scope="col">Signal</th>
                      <th scope="col">Symbol</th>
                      <th scope="col">Side</th>
                      <th scope="col">State</th>
                      <th scope="col">Tickets</th>
                      <th scope="col">Fill price</th>
                      <th scope="col">Retcode</th>
                    </tr>
                  </thead>
                  <tbody>
                    {orders.items.map((o) => {
                      const href = orderLink(o);
                      const signal = known.byId.get(o.signal_id);
                      const instrument = known.bySymbol.get(requestField(o, 'symbol')) ?? '';
                      return (
                        <tr key={o.signal_id} data-signal-id={o.signal_id}>
                          <td data-label="Received">{formatWhen(o.received_at, now)}</td>
                          <td data-label="Signal">
                            {href ? (
                              <Link href={href}>{signal ? `${signal.type} ${pairLabel(signal.instrument)}` : 'on the chart'}</Link>
                            ) : (
                              <span class="muted">{requestField(o, 'source') || '—'}</span>
                            )}
                          </td>
                          <td data-label="Symbol">{requestField(o, 'symbol') || '—'}</td>
                          <td data-label="Side">
                            {requestField(o, 'direction') || '—'} {requestField(o, 'volume')}
                          </td>
                          <td data-label="State">
                            <StatusBadge status={o.state} title={o.error ? `${o.error.code}: ${o.error.message}` : undefined} />
                            {o.error && <span class="muted"> {o.error.code}</span>}
                          </td>
                          <td data-label="Tickets" class="tickets">
                            <Tickets tickets={o.tickets} />
                          </td>
                          <td data-label="Fill price" class="num">
                            {o.result?.price ? (instrument ? formatPrice(Number(o.result.price), instrument) : o.result.price) : '—'}
                          </td>
                          <td data-label="Retcode" class="words" title={o.result?.broker_comment}>
                            {o.result ? (
                              <>
                                <span class="word">{o.result.retcode}</span> <span class="word">{o.result.retcode_name}</span>
                              </>
                            ) : (
                              '—'
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
            <MoreButton list={orders} what="orders" />
          </>
        )}

        {tab === 'deliveries' && (
          <>
            <label class="filter">
              Status{' '}
              <select value={deliveryStatus} onChange={(e) => setDeliveryStatus(e.currentTarget.value as DeliveryStatus | '')}>
                <option value="">any</option>
                {DELIVERY_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
            <ListState list={deliveries} what="deliveries" />
            {deliveries.items.length === 0 && !deliveries.loading && !deliveries.error && <p class="empty">No delivery yet: nothing has been announced.</p>}
            {deliveries.items.length > 0 && (
              <table class="grid cards deliveries" aria-label="Deliveries">
                <thead>
                  <tr>
                    <th scope="col">Created</th>
                    <th scope="col">Signal</th>
                    <th scope="col">Channel</th>
                    <th scope="col">Recipient</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.items.map((d) => {
                    const signal = known.byRequest.get(d.requestId);
                    return (
                      <tr key={d.id} data-delivery-id={d.id} data-signal-id={signal?.signal_id}>
                        <td data-label="Created">{formatWhen(d.createdAt, now)}</td>
                        <td data-label="Signal">
                          {signal ? (
                            <Link href={signalHref(signal)}>
                              {signal.type} {pairLabel(signal.instrument)}
                            </Link>
                          ) : (
                            <span class="muted">{d.source}</span>
                          )}
                        </td>
                        <td data-label="Channel">{humanize(d.channel)}</td>
                        <td data-label="Recipient">{d.recipient}</td>
                        <td data-label="Status">
                          <StatusBadge status={d.status} title={d.error ? `${d.error.code}: ${d.error.message}` : undefined} />
                          {d.provider && <span class="muted"> via {d.provider}</span>}
                        </td>
                        <td data-label="Attempts" class="num">
                          {d.attempts}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
            <MoreButton list={deliveries} what="deliveries" />
          </>
        )}
      </section>
    </div>
  );
}
