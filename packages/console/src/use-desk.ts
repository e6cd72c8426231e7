import type { CandleEvent, DeliveryEvent, DownstreamEvent, OrderEvent, PairRecord, StrategyEventName, StrategySignal, StrategyStatus } from '@fxdesk/schemas';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, type Api } from './api.js';
import { deskReducer, initialDeskState, type DeskAction, type DeskState, type Profile } from './desk-state.js';
import { connectEvents } from './events.js';
import { serviceViews } from './service-health.js';

/** How often the account is read again (its own route, not spec 000's shared limit). */
const ACCOUNT_EVERY_MS = 15_000;
/** How often the services' readiness is read again: often while one is down, to see it come back. */
const SERVICES_EVERY_MS = 30_000;
const SERVICES_WHILE_DOWN_MS = 5000;
/** Signals read with the snapshot (the desk's recent list). */
const SNAPSHOT_SIGNALS = 20;
/** How long after a failed snapshot it is read again, when the answer named no Retry-After (nothing answered, a 5xx). */
const RETRY_AFTER_FAILURE_MS = 5000;

export type EventListener = (name: StrategyEventName, data: unknown) => void;

/** The desk as every page sees it: its state, the API, and the live events for pages that follow one pair. */
export interface Desk {
  state: DeskState;
  api: Api;
  /** Hears every event after the desk state took it in; returns the unsubscribe. */
  listen: (listener: EventListener) => () => void;
  /** Reads the snapshot (status, pairs, recent signals) again. */
  reload: () => void;
  /** Applies what a control call answered before its events arrive. */
  dispatch: (action: DeskAction) => void;
}

export const DeskContext = createContext<Desk | null>(null);

export function useDesk(): Desk {
  const desk = useContext(DeskContext);
  if (!desk) throw new Error('useDesk outside the desk');
  return desk;
}

function actionOf(name: StrategyEventName, data: unknown, at: number): DeskAction | null {
  switch (name) {
    case 'status':
      return { type: 'status', status: data as StrategyStatus, at };
    case 'pair':
      return { type: 'pair', pair: data as PairRecord, at };
    case 'candle':
      return { type: 'candle', event: data as CandleEvent, at };
    case 'signal':
      return { type: 'signal', signal: data as StrategySignal, at };
    case 'order':
      return { type: 'order', event: data as OrderEvent, at };
    case 'delivery':
      return { type: 'delivery', event: data as DeliveryEvent, at };
    case 'downstream':
      return { type: 'downstream', event: data as DownstreamEvent, at };
    // The Lab's pages follow their jobs themselves (listen).
    case 'lab':
    case 'reset':
      return null;
  }
}

/**
 * Connects the page to the desk: reads the snapshot, then keeps it current from /events; reads
 * the account and the services' readiness on their own timers (the events say when a service
 * changed, the readiness says why).
 */
export function useDeskConnection(api: Api): Desk {
  const [state, dispatch] = useReducer(deskReducer, initialDeskState);
  const listeners = useRef(new Set<EventListener>());
  const [servicesTick, setServicesTick] = useState(0);
  const [reloadTick, setReloadTick] = useState(0);

  // The snapshot: at start, after `reset`, when the stream had to be opened afresh, and again by
  // itself after a failure (after the Retry-After of a 429). It is taken whole or not at all.
  useEffect(() => {
    let cancelled = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    void (async () => {
      try {
        const snapshot = await readSnapshot(api);
        if (!cancelled) dispatch({ type: 'snapshot', ...snapshot, at: Date.now() });
      } catch (err) {
        if (cancelled) return;
        const retryInMs = err instanceof ApiError && err.retryAfterSeconds !== null ? err.retryAfterSeconds * 1000 : RETRY_AFTER_FAILURE_MS;
        const unauthorized = err instanceof ApiError && err.status === 401;
        dispatch({ type: 'load_failed', failure: { message: loadFailureText(err), retryAt: unauthorized ? null : Date.now() + retryInMs } });
        if (!unauthorized) retry = setTimeout(() => setReloadTick((n) => n + 1), retryInMs);
      }
    })();
    return () => {
      cancelled = true;
      clearTimeout(retry);
    };
  }, [api, reloadTick]);

  useEffect(
    () =>
      connectEvents('/events', {
        onEvent: (name, data) => {
          if (name === 'reset') setReloadTick((n) => n + 1);
          const action = actionOf(name, data, Date.now());
          if (action) dispatch(action);
          if (name === 'downstream') setServicesTick((n) => n + 1);
          for (const listener of listeners.current) listener(name, data);
        },
        onOpen: () => dispatch({ type: 'connection', connection: 'live' }),
        onInterrupted: () => dispatch({ type: 'connection', connection: 'reconnecting' }),
        onRestart: () => setReloadTick((n) => n + 1),
      }),
    [],
  );

  const anyDown = serviceViews(state.status, state.services).some((s) => s.state === 'down' || s.state === 'degraded');
  useEffect(() => {
    let cancelled = false;
    const read = async () => {
      try {
        const services = await api.services();
        if (!cancelled) dispatch({ type: 'services', services });
      } catch {
        // the banner already says the strategy is not answering
      }
    };
    void read();
    const timer = setInterval(() => void read(), anyDown ? SERVICES_WHILE_DOWN_MS : SERVICES_EVERY_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [api, servicesTick, anyDown]);

  const last = useRef(state.account);
  last.current = state.account;
  useEffect(() => {
    let cancelled = false;
    const read = async () => {
      try {
        const read = await api.account();
        if (!cancelled) dispatch({ type: 'account', account: { state: 'ok', read } });
      } catch (err) {
        if (cancelled) return;
        if (err instanceof ApiError && err.code === 'NOT_CONFIGURED') return dispatch({ type: 'account', account: { state: 'not_configured' } });
        const previous = last.current;
        const lastRead = previous.state === 'ok' ? previous.read : previous.state === 'error' ? previous.last : null;
        dispatch({ type: 'account', account: { state: 'error', message: describeError(err), last: lastRead } });
      }
    };
    void read();
    const timer = setInterval(() => void read(), ACCOUNT_EVERY_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [api]);

  const listen = useCallback((listener: EventListener) => {
    listeners.current.add(listener);
    return () => void listeners.current.delete(listener);
  }, []);
  const reload = useCallback(() => setReloadTick((n) => n + 1), []);
  return useMemo(() => ({ state, api, listen, reload, dispatch }), [state, api, listen, reload]);
}

/** The status, the pairs, the recent signals and each pair's volume profile, read together: all of them, or a failure. */
async function readSnapshot(api: Api): Promise<{ status: StrategyStatus; pairs: PairRecord[]; signals: StrategySignal[]; profiles: Record<string, Profile> }> {
  const [status, pairs, history] = await Promise.all([api.status(), api.pairs(), api.signals({ limit: SNAPSHOT_SIGNALS })]);
  const latest = await Promise.all(pairs.map(async (p) => (await api.pairCandles(p.instrument, { limit: 1 })).candles.at(-1)?.volume_profile));
  const profiles: Record<string, Profile> = {};
  pairs.forEach((p, i) => {
    const profile = latest[i];
    if (profile) profiles[p.instrument] = profile;
  });
  return { status, pairs, signals: history.signals, profiles };
}

/** Why the snapshot failed, for the banner (which says itself when it is read again). */
function loadFailureText(err: unknown): string {
  if (err instanceof ApiError && (err.status === 429 || err.code === 'RATE_LIMITED')) return 'the strategy service asked the console to slow down (429)';
  return describeError(err);
}

/** The current time, advancing every `everyMs`: for "5 s ago" and the next candle's close. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
