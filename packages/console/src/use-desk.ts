import type { CandleEvent, DeliveryEvent, DownstreamEvent, OrderEvent, PairRecord, StrategyEventName, StrategySignal, StrategyStatus } from '@fxdesk/schemas';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, type Api } from './api.js';
import { deskReducer, initialDeskState, type DeskAction, type DeskState } from './desk-state.js';
import { connectEvents } from './events.js';
import { serviceViews } from './service-health.js';

/** How often the account is read again (its own route, not spec 000's shared limit). */
const ACCOUNT_EVERY_MS = 15_000;
/** How often the services' readiness is read again: often while one is down, to see it come back. */
const SERVICES_EVERY_MS = 30_000;
const SERVICES_WHILE_DOWN_MS = 5000;
/** Signals read with the snapshot (the desk's recent list). */
const SNAPSHOT_SIGNALS = 20;
/** Pairs whose volume profile is read at load (one GET each, on spec 000's limit); the rest wait for their next candle. */
const PROFILE_READS = 12;

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
  const profilesRead = useRef(new Set<string>());
  const [servicesTick, setServicesTick] = useState(0);
  const [reloadTick, setReloadTick] = useState(0);

  // The snapshot: at start, after `reset`, and when the stream had to be opened afresh.
  useEffect(() => {
    let cancelled = false;
    void (async () => {
      try {
        const [status, pairs, history] = await Promise.all([api.status(), api.pairs(), api.signals({ limit: SNAPSHOT_SIGNALS })]);
        if (cancelled) return;
        dispatch({ type: 'snapshot', status, pairs, signals: history.signals, at: Date.now() });
        const missing = pairs.map((p) => p.instrument).filter((i) => !profilesRead.current.has(i));
        for (const instrument of missing.slice(0, PROFILE_READS)) {
          profilesRead.current.add(instrument);
          const { candles } = await api.pairCandles(instrument, { limit: 1 });
          const profile = candles.at(-1)?.volume_profile;
          if (!cancelled && profile) dispatch({ type: 'profile', instrument, profile });
        }
      } catch (err) {
        if (!cancelled) dispatch({ type: 'load_failed', message: describeError(err) });
      }
    })();
    return () => {
      cancelled = true;
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

/** The current time, advancing every `everyMs`: for "5 s ago" and the next candle's close. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
