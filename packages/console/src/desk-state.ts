import type {
  AccountSummaryRead,
  CandleEvent,
  ConsoleServices,
  DeliveryEvent,
  DownstreamEvent,
  OrderEvent,
  PairRecord,
  StrategySignal,
  StrategyStatus,
} from '@fxdesk/schemas';

/** The volume profile's levels after a pair's latest candle. */
export interface Profile {
  poc: number;
  vah: number;
  val: number;
}

/** The account as the console last read it from /console/account. */
export type AccountView =
  | { state: 'loading' }
  | { state: 'ok'; read: AccountSummaryRead }
  | { state: 'not_configured' }
  | { state: 'error'; message: string; last: AccountSummaryRead | null };

/** The event stream: `live` once open, `reconnecting` after it broke (the browser retries by itself). */
export type Connection = 'connecting' | 'live' | 'reconnecting';

/** Why the desk could not be read, and when it is read again by itself (epoch ms; null: only when asked). */
export interface LoadFailure {
  message: string;
  retryAt: number | null;
}

/**
 * What the desk pages show, kept current by the /events stream. The desk is shown only from a
 * whole snapshot on (status, pairs, recent signals and the pairs' volume profiles, all read
 * together, `snapshotAt`): never pieces of a read that partly failed beside the events that came
 * meanwhile. When a later read fails, the last whole snapshot stays, kept current by the events,
 * and the banner says since when and when it is read again.
 */
export interface DeskState {
  status: StrategyStatus | null;
  /** Instruments in the order the strategy lists them. */
  order: string[];
  pairs: Record<string, PairRecord>;
  profiles: Record<string, Profile>;
  /** The newest signals, newest first (the first page of GET /signals, then live ones). */
  signals: StrategySignal[];
  services: ConsoleServices | null;
  account: AccountView;
  connection: Connection;
  /** When the last event or snapshot arrived (epoch ms). */
  updatedAt: number | null;
  /** When the last whole snapshot was read (epoch ms); null before the first. */
  snapshotAt: number | null;
  /** Why the last snapshot could not be read, if it could not. */
  loadError: LoadFailure | null;
}

export const RECENT_SIGNALS = 50;

export const initialDeskState: DeskState = {
  status: null,
  order: [],
  pairs: {},
  profiles: {},
  signals: [],
  services: null,
  account: { state: 'loading' },
  connection: 'connecting',
  updatedAt: null,
  snapshotAt: null,
  loadError: null,
};

export type DeskAction =
  | { type: 'snapshot'; status: StrategyStatus; pairs: PairRecord[]; signals: StrategySignal[]; profiles: Record<string, Profile>; at: number }
  | { type: 'load_failed'; failure: LoadFailure }
  | { type: 'status'; status: StrategyStatus; at: number }
  | { type: 'pair'; pair: PairRecord; at: number }
  | { type: 'candle'; event: CandleEvent; at: number }
  | { type: 'signal'; signal: StrategySignal; at: number }
  | { type: 'order'; event: OrderEvent; at: number }
  | { type: 'delivery'; event: DeliveryEvent; at: number }
  | { type: 'downstream'; event: DownstreamEvent; at: number }
  | { type: 'services'; services: ConsoleServices }
  | { type: 'account'; account: AccountView }
  | { type: 'connection'; connection: Connection };

function upsertSignal(signals: StrategySignal[], signal: StrategySignal): StrategySignal[] {
  const rest = signals.filter((s) => s.signal_id !== signal.signal_id);
  return [signal, ...rest].sort((a, b) => b.generated_at.localeCompare(a.generated_at)).slice(0, RECENT_SIGNALS);
}

function patchSignal(signals: StrategySignal[], signalId: string, patch: Partial<StrategySignal>): StrategySignal[] {
  return signals.some((s) => s.signal_id === signalId) ? signals.map((s) => (s.signal_id === signalId ? { ...s, ...patch } : s)) : signals;
}

/** The desk after one event or read. Pure: the tests drive it with the contract's records. */
export function deskReducer(state: DeskState, action: DeskAction): DeskState {
  switch (action.type) {
    case 'snapshot': {
      const pairs = Object.fromEntries(action.pairs.map((p) => [p.instrument, p]));
      // Live signals that arrived while the page was reading stay.
      const signals = action.signals.reduce(upsertSignal, state.signals);
      const profiles = { ...state.profiles, ...action.profiles };
      const order = action.pairs.map((p) => p.instrument);
      return { ...state, status: action.status, order, pairs, profiles, signals, updatedAt: action.at, snapshotAt: action.at, loadError: null };
    }
    case 'load_failed':
      return { ...state, loadError: action.failure };
    case 'status':
      return { ...state, status: action.status, updatedAt: action.at };
    case 'pair': {
      const { pair } = action;
      const order = state.order.includes(pair.instrument) ? state.order : [...state.order, pair.instrument];
      return { ...state, order, pairs: { ...state.pairs, [pair.instrument]: pair }, updatedAt: action.at };
    }
    case 'candle': {
      const profile = action.event.candle.volume_profile;
      const profiles = profile ? { ...state.profiles, [action.event.instrument]: profile } : state.profiles;
      return { ...state, profiles, updatedAt: action.at };
    }
    case 'signal': {
      const { signal } = action;
      const pair = state.pairs[signal.instrument];
      const pairs = pair
        ? { ...state.pairs, [signal.instrument]: { ...pair, last_signal: { type: signal.type, time: signal.generated_at, entry_price: signal.entry_price } } }
        : state.pairs;
      return { ...state, signals: upsertSignal(state.signals, signal), pairs, updatedAt: action.at };
    }
    case 'order':
      return { ...state, signals: patchSignal(state.signals, action.event.signal_id, { execution: action.event.execution }), updatedAt: action.at };
    case 'delivery':
      return { ...state, signals: patchSignal(state.signals, action.event.signal_id, { notification: action.event.notification }), updatedAt: action.at };
    case 'downstream': {
      if (!state.status) return state;
      const downstream = { ...state.status.downstream, [action.event.service]: action.event.state };
      return { ...state, status: { ...state.status, downstream }, updatedAt: action.at };
    }
    case 'services':
      return { ...state, services: action.services };
    case 'account':
      return { ...state, account: action.account };
    case 'connection':
      return { ...state, connection: action.connection };
  }
}

/** The pairs in the strategy's order. */
export function pairList(state: DeskState): PairRecord[] {
  return state.order.map((i) => state.pairs[i]).filter((p): p is PairRecord => p !== undefined);
}
