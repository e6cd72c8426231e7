import {
  BrokerError,
  compareTickets,
  symbolToInstrument,
  type AccountChanges,
  type AccountDetails,
  type AccountReader,
  type AccountSummary,
  type AccountTransaction,
  type Instrument,
  type PendingOrder,
  type Position,
  type PositionSide,
  type Trade,
} from '@fxdesk/broker';
import { ServiceError, type ExecutionClient } from '@fxdesk/client';
import type { Clock } from '@fxdesk/primitives';
import type { Deal, OpenPosition, RestingOrder, SymbolTerms, TerminalAccountAnswer } from '@fxdesk/schemas';

/** The widest range GET /v1/deals answers: the reader's history is the last 31 days of deals. */
export const DEALS_WINDOW_MS = 31 * 86_400_000;
const DEALS_PAGE = 500;

export interface ExecutionAccountOptions {
  client: ExecutionClient;
  clock: Clock;
  /** Broker symbols the instrument list is asked for (those the execution service refuses are left out). */
  symbols: readonly string[];
  /** The account's id in the answers (the execution service's terminal has no OANDA-style id). */
  id?: string;
}

/** What the execution service holds now, read at once. */
interface Book {
  account: TerminalAccountAnswer;
  positions: OpenPosition[];
  orders: RestingOrder[];
  deals: Deal[];
}

/**
 * The account the execution service trades, read over its keyed HTTP API and answered in the
 * account service's OANDA-shaped records: `GET /v1/account` (money), `/v1/positions` (each an
 * OANDA trade, grouped by instrument into positions), `/v1/orders`, `/v1/deals` (the
 * transactions: a deal's ticket is its id, and tickets increase) and `/v1/symbols/{symbol}`
 * (contract sizes and the instrument list). Units are lots × contract size, signed.
 */
export class ExecutionAccount implements AccountReader {
  readonly name = 'execution';
  readonly id: string;
  private readonly client: ExecutionClient;
  private readonly clock: Clock;
  private readonly symbols: readonly string[];
  /** A symbol's terms do not change while the service runs; a failed read is not kept. */
  private readonly terms = new Map<string, Promise<SymbolTerms>>();

  constructor(options: ExecutionAccountOptions) {
    this.client = options.client;
    this.clock = options.clock;
    this.symbols = options.symbols;
    this.id = options.id ?? 'execution';
  }

  async summary(): Promise<AccountSummary> {
    const book = await this.read();
    return this.summaryOf(book);
  }

  async details(): Promise<AccountDetails> {
    const book = await this.read();
    const trades = await Promise.all(book.positions.map((p) => this.tradeOf(p)));
    return {
      ...this.summaryOf(book),
      positions: positionsOf(trades, instrumentsOf(trades)),
      trades,
      orders: await Promise.all(book.orders.map((o) => this.orderOf(o))),
    };
  }

  async instruments(names?: string[]): Promise<Instrument[]> {
    const wanted = names && names.length > 0 ? new Set(names) : undefined;
    const listed = this.symbols.filter((s) => !wanted || wanted.has(instrumentOf(s)));
    const terms = await Promise.all(listed.map((s) => this.termsOf(s).catch(orNullWhenNotAllowed)));
    return terms.filter((t): t is SymbolTerms => t !== null).map(instrumentOfTerms);
  }

  /** The deals after `sinceTransactionId` within the deals window, as OANDA's changes. */
  async changesSince(sinceTransactionId: string): Promise<AccountChanges> {
    const book = await this.read();
    const last = lastTicket(book.deals);
    if (!/^\d{1,20}$/.test(sinceTransactionId) || compareTickets(sinceTransactionId.replace(/^0+(?=\d)/, ''), last) > 0) {
      throw new BrokerError('not_found', `transaction ${sinceTransactionId} does not exist (last is ${last})`, { venueCode: '404' });
    }
    const since = sinceTransactionId.replace(/^0+(?=\d)/, '');
    const deals = book.deals.filter((d) => compareTickets(d.ticket, since) > 0);
    const open = new Map<string, Trade>();
    for (const p of book.positions) open.set(p.ticket, await this.tradeOf(p));
    const tradesOpened = new Map<string, Trade>();
    const tradesReduced = new Map<string, Trade>();
    const tradesClosed = new Map<string, Trade>();
    for (const deal of deals) {
      const ticket = deal.position ?? deal.ticket;
      const trade = open.get(ticket) ?? (await this.closedTradeOf(ticket, deal, book.deals));
      if (deal.entry === 'in') tradesOpened.set(ticket, trade);
      else if (open.has(ticket)) tradesReduced.set(ticket, trade);
      else tradesClosed.set(ticket, trade);
    }
    const touched = new Set(deals.map((d) => instrumentOf(d.symbol)));
    const summary = this.summaryOf(book);
    return {
      sinceTransactionId: since,
      lastTransactionId: last,
      ordersCreated: [],
      ordersCancelled: [],
      ordersFilled: [],
      tradesOpened: [...tradesOpened.values()],
      tradesReduced: [...tradesReduced.values()],
      tradesClosed: [...tradesClosed.values()],
      positions: positionsOf([...open.values()], [...touched]),
      transactions: await Promise.all(deals.map((d) => this.transactionOf(d))),
      state: { nav: summary.nav, unrealizedPL: summary.unrealizedPL, marginUsed: summary.marginUsed, marginAvailable: summary.marginAvailable },
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }

  // --- reads -----------------------------------------------------------------------------------

  private async read(): Promise<Book> {
    return venueCall(async () => {
      const [account, { positions }, { orders }, deals] = await Promise.all([
        this.client.account(),
        this.client.positions(),
        this.client.orders(),
        this.recentDeals(),
      ]);
      return { account, positions, orders, deals };
    });
  }

  /** Every deal of the window, oldest first, page after page. */
  private async recentDeals(): Promise<Deal[]> {
    const now = this.clock.now();
    const query = { from: new Date(now - DEALS_WINDOW_MS + 1).toISOString(), to: new Date(now + 1).toISOString(), limit: DEALS_PAGE };
    const deals: Deal[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.deals({ ...query, cursor });
      deals.push(...page.deals);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return deals;
  }

  private termsOf(symbol: string): Promise<SymbolTerms> {
    let terms = this.terms.get(symbol);
    if (!terms) {
      terms = venueCall(() => this.client.symbolTerms(symbol));
      this.terms.set(symbol, terms);
      terms.catch(() => this.terms.delete(symbol));
    }
    return terms;
  }

  private async unitsOf(symbol: string, lots: string, side: 'buy' | 'sell'): Promise<string> {
    const { contract_size: contractSize } = await this.termsOf(symbol);
    const units = Math.round(Number(lots) * contractSize);
    return String(side === 'buy' ? units : -units);
  }

  // --- views -----------------------------------------------------------------------------------

  private summaryOf({ account, positions, orders, deals }: Book): AccountSummary {
    const unrealized = positions.reduce((sum, p) => sum + Number(p.profit) + Number(p.swap), 0);
    const realized = deals.reduce((sum, d) => sum + Number(d.profit) + Number(d.commission) + Number(d.swap), 0);
    return {
      id: this.id,
      alias: 'Execution terminal',
      currency: account.currency,
      balance: account.balance,
      nav: account.equity,
      unrealizedPL: money(unrealized),
      realizedPL: money(realized),
      marginUsed: account.margin,
      marginAvailable: account.free_margin,
      marginRate: account.leverage === null ? '0' : String(1 / account.leverage),
      openTradeCount: positions.length,
      openPositionCount: new Set(positions.map((p) => p.symbol)).size,
      pendingOrderCount: orders.length,
      lastTransactionId: lastTicket(deals),
      asOf: account.as_of,
    };
  }

  private async tradeOf(p: OpenPosition): Promise<Trade> {
    const units = await this.unitsOf(p.symbol, p.volume, p.side);
    const { digits } = await this.termsOf(p.symbol);
    return {
      id: p.ticket,
      instrument: instrumentOf(p.symbol),
      currentUnits: units,
      initialUnits: units,
      price: priceOf(p.open_price, digits),
      openTime: p.opened_at,
      unrealizedPL: p.profit,
      stopLoss: p.sl === null ? null : priceOf(p.sl, digits),
      takeProfit: p.tp === null ? null : priceOf(p.tp, digits),
    };
  }

  /** A position no longer open, from its entry deal in the window (else from `deal`, its exit). */
  private async closedTradeOf(ticket: string, deal: Deal, deals: Deal[]): Promise<Trade> {
    const entry = deals.find((d) => d.position === ticket && d.entry === 'in') ?? deal;
    return {
      id: ticket,
      instrument: instrumentOf(entry.symbol),
      currentUnits: '0',
      initialUnits: await this.unitsOf(entry.symbol, entry.volume, entry.side),
      price: priceOf(entry.price, (await this.termsOf(entry.symbol)).digits),
      openTime: entry.time,
      unrealizedPL: '0.00',
      stopLoss: null,
      takeProfit: null,
    };
  }

  private async orderOf(o: RestingOrder): Promise<PendingOrder> {
    const side = o.type.startsWith('buy') ? 'buy' : 'sell';
    return {
      id: o.ticket,
      type: o.type.endsWith('_limit') ? 'LIMIT' : 'STOP',
      instrument: instrumentOf(o.symbol),
      units: await this.unitsOf(o.symbol, o.volume, side),
      price: priceOf(o.price, (await this.termsOf(o.symbol)).digits),
      timeInForce: o.expiration === null ? 'GTC' : 'GTD',
      createTime: o.placed_at,
      state: 'PENDING',
    };
  }

  private async transactionOf(d: Deal): Promise<AccountTransaction> {
    return {
      id: d.ticket,
      time: d.time,
      type: 'ORDER_FILL',
      instrument: instrumentOf(d.symbol),
      units: await this.unitsOf(d.symbol, d.volume, d.side),
      price: priceOf(d.price, (await this.termsOf(d.symbol)).digits),
      pl: d.profit,
      accountBalance: null,
      reason: FILL_REASONS[d.reason] ?? 'MARKET_ORDER',
    };
  }
}

/** OANDA's OrderFillTransaction reasons for MT5's deal reasons. */
const FILL_REASONS: Partial<Record<Deal['reason'], string>> = { sl: 'STOP_LOSS_ORDER', tp: 'TAKE_PROFIT_ORDER', so: 'MARKET_ORDER_MARGIN_CLOSEOUT' };

/** Each instrument's net of its open trades, both sides (an instrument with none has empty sides). */
function positionsOf(trades: Trade[], instruments: string[]): Position[] {
  return instruments.map((instrument) => {
    const mine = trades.filter((t) => t.instrument === instrument);
    const long = sideOf(mine.filter((t) => Number(t.currentUnits) > 0));
    const short = sideOf(mine.filter((t) => Number(t.currentUnits) < 0));
    // MT5 reports margin for the whole account only, not per position.
    return { instrument, long, short, unrealizedPL: money(Number(long.unrealizedPL) + Number(short.unrealizedPL)), marginUsed: '0.00' };
  });
}

function sideOf(trades: Trade[]): PositionSide {
  const units = trades.reduce((sum, t) => sum + Number(t.currentUnits), 0);
  const digits = Math.max(0, ...trades.map((t) => t.price.split('.')[1]?.length ?? 0));
  const average = units === 0 ? null : trades.reduce((sum, t) => sum + Number(t.price) * Number(t.currentUnits), 0) / units;
  return {
    units: String(units),
    averagePrice: average === null ? null : average.toFixed(digits),
    unrealizedPL: money(trades.reduce((sum, t) => sum + Number(t.unrealizedPL), 0)),
    tradeIds: trades.map((t) => t.id),
  };
}

function instrumentsOf(trades: Trade[]): string[] {
  return [...new Set(trades.map((t) => t.instrument))];
}

function lastTicket(deals: Deal[]): string {
  return deals.reduce((last, d) => (compareTickets(d.ticket, last) > 0 ? d.ticket : last), '0');
}

/** `EUR_USD` for `EURUSD`: the simulated market's name, else the base and quote of a six-letter symbol. */
export function instrumentOf(symbol: string): string {
  return symbolToInstrument(symbol) ?? (/^[A-Z]{6}$/.test(symbol) ? `${symbol.slice(0, 3)}_${symbol.slice(3)}` : symbol);
}

function instrumentOfTerms(t: SymbolTerms): Instrument {
  return {
    name: instrumentOf(t.symbol),
    type: t.currency_base === 'XAU' ? 'METAL' : 'CURRENCY',
    displayName: `${t.currency_base}/${t.currency_profit}`,
    pipLocation: -(t.digits - 1),
    displayPrecision: t.digits,
    tradeUnitsPrecision: 0,
    minimumTradeSize: String(Math.round(Number(t.volume_min) * t.contract_size)),
    maximumOrderUnits: String(Math.round(Number(t.volume_max) * t.contract_size)),
    marginRate: '0',
  };
}

/** A price as OANDA writes it, to the instrument's precision (the terminal trims trailing zeros). */
function priceOf(price: string, digits: number): string {
  return Number(price).toFixed(digits);
}

function money(value: number): string {
  return value.toFixed(2);
}

function orNullWhenNotAllowed(err: unknown): null {
  if (err instanceof BrokerError && err.kind === 'not_found') return null;
  throw err;
}

/** A call to the execution service, its failures as the BrokerErrors the account service maps. */
async function venueCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    const options = { venueCode: err.status === undefined ? err.code : String(err.status), retryAfterSeconds: err.retryAfterSeconds, cause: err };
    const message = `the execution service: ${err.message}`;
    if (err.kind === 'timeout') throw new BrokerError('timeout', message, options);
    if (err.kind === 'network') throw new BrokerError('unavailable', message, options);
    if (err.kind === 'invalid_response') throw new BrokerError('protocol', message, options);
    if (err.status === 401 || err.status === 403) throw new BrokerError('unauthorized', message, options);
    if (err.status === 429) throw new BrokerError('rate_limited', message, options);
    if (err.code === 'symbol_not_allowed') throw new BrokerError('not_found', message, options);
    throw new BrokerError('unavailable', message, options);
  }
}
