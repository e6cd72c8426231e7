/**
 * Normalized account records, shaped after the OANDA v20 account model (camelCase, decimals as
 * strings) since that is the venue behind the account-read service. Every adapter fills them.
 */

export interface AccountSummary {
  id: string;
  alias: string | null;
  currency: string;
  balance: string;
  /** Net asset value: balance + unrealized P/L. */
  nav: string;
  unrealizedPL: string;
  realizedPL: string;
  marginUsed: string;
  marginAvailable: string;
  marginRate: string;
  openTradeCount: number;
  openPositionCount: number;
  pendingOrderCount: number;
  /** The broker's id of the last transaction on the account. */
  lastTransactionId: string;
  /** When the broker produced this state (ISO 8601). */
  asOf: string;
}

export interface PositionSide {
  units: string;
  averagePrice: string | null;
  unrealizedPL: string;
  tradeIds: string[];
}

export interface Position {
  instrument: string;
  long: PositionSide;
  short: PositionSide;
  unrealizedPL: string;
  marginUsed: string;
}

export interface Trade {
  id: string;
  instrument: string;
  /** Signed units: positive long, negative short. */
  currentUnits: string;
  initialUnits: string;
  price: string;
  openTime: string;
  unrealizedPL: string;
  stopLoss: string | null;
  takeProfit: string | null;
}

export interface PendingOrder {
  id: string;
  type: string;
  instrument: string;
  units: string;
  price: string | null;
  timeInForce: string;
  createTime: string;
  state: string;
}

export interface AccountDetails extends AccountSummary {
  positions: Position[];
  trades: Trade[];
  orders: PendingOrder[];
}

export interface Instrument {
  /** `EUR_USD`. */
  name: string;
  type: 'CURRENCY' | 'METAL' | 'CFD';
  displayName: string;
  /** Location of the pip: -4 for EUR_USD, -2 for USD_JPY. */
  pipLocation: number;
  displayPrecision: number;
  tradeUnitsPrecision: number;
  minimumTradeSize: string;
  maximumOrderUnits: string;
  marginRate: string;
}

export interface AccountTransaction {
  id: string;
  time: string;
  type: string;
  instrument: string | null;
  units: string | null;
  price: string | null;
  pl: string | null;
  accountBalance: string | null;
  reason: string | null;
}

/** What changed since a transaction id (OANDA `GET /accounts/{id}/changes`), normalized. */
export interface AccountChanges {
  sinceTransactionId: string;
  lastTransactionId: string;
  ordersCreated: PendingOrder[];
  ordersCancelled: PendingOrder[];
  ordersFilled: PendingOrder[];
  tradesOpened: Trade[];
  tradesReduced: Trade[];
  tradesClosed: Trade[];
  positions: Position[];
  transactions: AccountTransaction[];
  /** Current balance-side state after the changes, when the venue reports it. */
  state: { nav: string; unrealizedPL: string; marginUsed: string; marginAvailable: string } | null;
}

/**
 * Read-only access to a trading account. Methods throw BrokerError (unauthorized,
 * rate_limited, timeout, unavailable, protocol) on failure.
 */
export interface AccountReader {
  /** Adapter name: `simulated`, `oanda`. */
  readonly name: string;
  summary(): Promise<AccountSummary>;
  details(): Promise<AccountDetails>;
  /** Tradable instruments, optionally only the named ones. */
  instruments(names?: string[]): Promise<Instrument[]>;
  /** Changes after `sinceTransactionId`; throws BrokerError `not_found` for an id the broker does not know. */
  changesSince(sinceTransactionId: string): Promise<AccountChanges>;
  close(): Promise<void>;
}
