import { systemClock, type Clock } from '@fxdesk/primitives';
import type { z } from 'zod';
import type { AccountChanges, AccountDetails, AccountReader, AccountSummary, Instrument, Trade } from '../account.js';
import { BrokerError } from '../errors.js';
import { compareTickets } from '../terminal.js';
import {
  closedTradeOf,
  instrumentOf,
  instrumentNameOf,
  isTradeDeal,
  lastTransactionIdOf,
  pendingOf,
  pendingOrderRecordOf,
  positionsOf,
  summaryOf,
  termsOf,
  tradeModeOf,
  tradeOfPosition,
  transactionOf,
  type AccountBook,
  type MetaApiTradeMode,
  type SymbolTerms,
} from './account-records.js';
import { metaApiClients, untilSynchronized, type MetaApiClients, type MetaApiConnectionOptions } from './clients.js';
import { HISTORY_SLACK_MS, historyDealsBetween } from './reads.js';
import {
  AccountInformationSchema,
  OrdersSchema,
  PositionsSchema,
  SymbolSpecificationSchema,
  SymbolsSchema,
  type WireDeal,
  type WireSymbolSpecification,
} from './wire.js';

export interface MetaApiAccountOptions extends MetaApiConnectionOptions {
  /** Longest wait for a read, waiting for a synchronized terminal included (default 10 000 ms). */
  timeoutMs?: number;
  /** How far back the history deals are read: `realizedPL` and `changesSince` cover this window (default 31 days). */
  historyWindowMs?: number;
  /** The account's id in the records (default: the MetaApi account id). */
  id?: string;
  clock?: Clock;
}

const DAY_MS = 86_400_000;

/**
 * The MT5 account behind MetaApi, read over its REST client API and answered in the OANDA-shaped
 * records of the AccountReader: `GET …/account-information` (money), `…/positions` (each an
 * OANDA trade), `…/orders` (the resting ones), `…/history-deals/time/:startTime/:endTime` (the
 * transactions: a deal's ticket is its id, and MT5's tickets increase), `…/symbols` and
 * `…/symbols/:symbol/specification` (the instruments, contract sizes and digits; a
 * specification is read once per reader). Every read of the history waits first for the
 * provisioning API to report the account DEPLOYED and CONNECTED, since the REST history routes
 * answer whatever has loaded so far; the requests are paced under MetaApi's CPU credits and a
 * 202 Accepted is waited out, all within `timeoutMs` (see MetaApiHttp).
 */
export class MetaApiAccountReader implements AccountReader {
  readonly name = 'metaapi';
  readonly id: string;
  private readonly clock: Clock;
  private readonly clients: MetaApiClients;
  private readonly timeoutMs: number;
  private readonly historyWindowMs: number;
  /** A symbol's specification does not change while the reader runs; a failed read is not kept. */
  private readonly specifications = new Map<string, Promise<WireSymbolSpecification | null>>();

  constructor(options: MetaApiAccountOptions) {
    this.clock = options.clock ?? systemClock;
    this.clients = metaApiClients(options, this.clock);
    this.id = options.id ?? options.accountId;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.historyWindowMs = options.historyWindowMs ?? 31 * DAY_MS;
  }

  /** HTTP requests sent to MetaApi and not yet answered. */
  get requestsInFlight(): number {
    return this.clients.requestsInFlight();
  }

  async summary(): Promise<AccountSummary> {
    return summaryOf(this.id, await this.read());
  }

  async details(): Promise<AccountDetails> {
    const book = await this.read();
    const trades = await Promise.all(book.positions.map(async (p) => tradeOfPosition(p, await this.termsFor(p.symbol), book.deals)));
    const orders = await Promise.all(pendingOf(book.orders).map(async (o) => pendingOrderRecordOf(o, await this.termsFor(o.symbol))));
    return {
      ...summaryOf(this.id, book),
      positions: positionsOf(trades, [...new Set(trades.map((t) => t.instrument))]),
      trades,
      orders,
    };
  }

  /**
   * Whose money the account trades (account-information's `type`): demo, contest or real. Kept
   * apart from the summary, whose OANDA-shaped record the account service serves as it is.
   */
  async tradeMode(): Promise<MetaApiTradeMode> {
    return tradeModeOf(await this.get('/account-information', AccountInformationSchema));
  }

  /** Every symbol the account lists (`GET …/symbols`), or those named, as OANDA instruments. */
  async instruments(names?: string[]): Promise<Instrument[]> {
    const [listed, info] = await Promise.all([this.get('/symbols', SymbolsSchema), this.get('/account-information', AccountInformationSchema)]);
    const wanted = names && names.length > 0 ? new Set(names) : undefined;
    // Only the symbols that can carry a wanted name are specified: `EURUSD` for `EUR_USD`, a symbol for its own name.
    const candidates = wanted ? listed.filter((s) => wanted.has(s) || [...wanted].some((n) => n.replace('_', '') === s)) : listed;
    const specs = await Promise.all(candidates.map((s) => this.specification(s)));
    return specs
      .filter((spec): spec is WireSymbolSpecification => spec !== null && (!wanted || wanted.has(instrumentNameOf(spec))))
      .map((spec) => instrumentOf(spec, info.leverage));
  }

  /**
   * The deals whose ticket is above `sinceTransactionId`, within the history window, as OANDA's
   * changes: each a transaction, oldest first; an entry's position among `tradesOpened`, an
   * exit's among `tradesReduced` while the position stays open and `tradesClosed` once it is
   * gone; `positions` the touched instruments now. An id above the last deal's is `not_found`.
   */
  async changesSince(sinceTransactionId: string): Promise<AccountChanges> {
    if (!/^\d{1,20}$/.test(sinceTransactionId))
      throw new BrokerError('not_found', `transaction ${JSON.stringify(sinceTransactionId)} is not an MT5 deal ticket`);
    const since = sinceTransactionId.replace(/^0+(?=\d)/, '');
    const book = await this.read();
    const last = lastTransactionIdOf(book.deals);
    if (compareTickets(since, last) > 0) throw new BrokerError('not_found', `transaction ${since} does not exist (last is ${last})`, { venueCode: '404' });
    const deals = book.deals.filter((d) => compareTickets(d.id, since) > 0).sort((a, b) => compareTickets(a.id, b.id));
    const open = new Map<string, Trade>();
    for (const p of book.positions) open.set(p.id, tradeOfPosition(p, await this.termsFor(p.symbol), book.deals));
    const opened = new Map<string, Trade>();
    const reduced = new Map<string, Trade>();
    const closed = new Map<string, Trade>();
    const touched = new Set<string>();
    for (const deal of deals.filter(isTradeDeal)) {
      const terms = await this.termsOrNone(deal);
      // A deal of a symbol the broker no longer lists stays a transaction, with no trade to show.
      if (!terms) continue;
      const ticket = deal.positionId ?? deal.id;
      const trade = open.get(ticket) ?? closedTradeOf(ticket, deal, book.deals, terms);
      touched.add(terms.instrument);
      if ((deal.entryType ?? 'DEAL_ENTRY_IN') === 'DEAL_ENTRY_IN') opened.set(ticket, trade);
      else if (open.has(ticket)) reduced.set(ticket, trade);
      else closed.set(ticket, trade);
    }
    const summary = summaryOf(this.id, book);
    return {
      sinceTransactionId: since,
      lastTransactionId: last,
      // A pending order placed or cancelled makes no deal, so it moves no transaction id.
      ordersCreated: [],
      ordersCancelled: [],
      ordersFilled: [],
      tradesOpened: [...opened.values()],
      tradesReduced: [...reduced.values()],
      tradesClosed: [...closed.values()],
      positions: positionsOf([...open.values()], [...touched]),
      transactions: await Promise.all(deals.map(async (d) => transactionOf(d, isTradeDeal(d) ? await this.termsOrNone(d) : undefined))),
      state: { nav: summary.nav, unrealizedPL: summary.unrealizedPL, marginUsed: summary.marginUsed, marginAvailable: summary.marginAvailable },
    };
  }

  close(): Promise<void> {
    return this.clients.close();
  }

  // --- reads -----------------------------------------------------------------------------------

  private get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
    return this.clients.client.get(`${this.clients.accountPath}${path}`, {}, schema, this.timeoutMs);
  }

  /** The account now: its information, positions, orders and the deals of the window, once its terminal is synchronized. */
  private async read(): Promise<AccountBook> {
    await untilSynchronized(this.clients, this.clock, this.timeoutMs, this.clock.now() + this.timeoutMs);
    const now = this.clock.now();
    const [info, positions, orders, deals] = await Promise.all([
      this.get('/account-information', AccountInformationSchema),
      this.get('/positions', PositionsSchema),
      this.get('/orders', OrdersSchema),
      historyDealsBetween(this.clients, now - this.historyWindowMs, now + HISTORY_SLACK_MS, this.timeoutMs),
    ]);
    return { info, positions, orders, deals, asOf: new Date(now).toISOString() };
  }

  /** GET …/symbols/:symbol/specification, once per symbol; 404 (not listed) is null. */
  private specification(symbol: string): Promise<WireSymbolSpecification | null> {
    let spec = this.specifications.get(symbol);
    if (!spec) {
      spec = this.get(`/symbols/${encodeURIComponent(symbol)}/specification`, SymbolSpecificationSchema).catch((err: unknown) => {
        if (err instanceof BrokerError && err.kind === 'not_found') return null;
        this.specifications.delete(symbol);
        throw err;
      });
      this.specifications.set(symbol, spec);
    }
    return spec;
  }

  /** The terms of a symbol the account holds a position or an order in: one MetaApi does not specify is a protocol error. */
  private async termsFor(symbol: string): Promise<SymbolTerms> {
    const spec = await this.specification(symbol);
    if (!spec) throw new BrokerError('protocol', `MetaApi gives no specification of ${symbol}, which the account trades`);
    return termsOf(spec);
  }

  /** The terms of a deal's symbol, none when the broker no longer lists it (an old deal). */
  private async termsOrNone(deal: WireDeal): Promise<SymbolTerms | undefined> {
    const spec = deal.symbol === undefined ? null : await this.specification(deal.symbol);
    return spec ? termsOf(spec) : undefined;
  }
}
