import {
  isDealInFilter,
  simulatedSymbolInfo,
  symbolSpec,
  type Bar,
  type DealFilter,
  type Quote,
  type SymbolInfo,
  type TerminalAccount,
  type TerminalDeal,
  type TerminalOrder,
  type TerminalPosition,
  type TerminalRecord,
  type TradeCheckResult,
  type TradeRequest,
  type TradeResult,
  type TradingTerminal,
  type Unsubscribe,
} from '@fxdesk/broker';

const EURUSD: SymbolInfo = simulatedSymbolInfo(symbolSpec('EURUSD')!, 'full');

/**
 * A terminal whose answers a test scripts: order_send answers whatever `send` returns (or
 * throws), so retcodes the simulated terminal never produces (10011, 10012, 10031) can be tested.
 */
export class ScriptedTerminal implements TradingTerminal {
  readonly name = 'scripted';
  connected = true;
  calls = { orderCheck: 0, orderSend: 0 };
  sent: TradeRequest[] = [];
  check: (request: TradeRequest) => TradeCheckResult = () => ({ retcode: 0, comment: 'Done', balance: 0, equity: 0, margin: 0, marginFree: 0, marginLevel: 0 });
  send: (request: TradeRequest) => Promise<TradeResult> = async (request) => ({
    retcode: 10009,
    deal: '2',
    order: '1',
    position: '1',
    volume: request.volume,
    price: request.price ?? null,
    bid: null,
    ask: null,
    comment: 'Request executed',
    requestId: null,
  });
  quote: Quote | null = { symbol: 'EURUSD', bid: 1.085, ask: 1.0851, time: 0 };
  /** The history `deals` answers from (filtered as a terminal filters it), or what it throws. */
  history: TerminalDeal[] | Error = [];
  dealFilters: DealFilter[] = [];

  async connect(): Promise<void> {
    this.connected = true;
  }
  async close(): Promise<void> {
    this.connected = false;
  }
  isConnected(): boolean {
    return this.connected;
  }
  onConnectionChange(): Unsubscribe {
    return () => undefined;
  }
  async symbolInfo(symbol: string): Promise<SymbolInfo | null> {
    return symbol === 'EURUSD' ? EURUSD : null;
  }
  async tick(): Promise<Quote | null> {
    return this.quote;
  }
  async orderCheck(request: TradeRequest): Promise<TradeCheckResult> {
    this.calls.orderCheck += 1;
    return this.check(request);
  }
  async orderSend(request: TradeRequest): Promise<TradeResult> {
    this.calls.orderSend += 1;
    this.sent.push(request);
    return this.send(request);
  }
  async rates(): Promise<Bar[]> {
    return [];
  }
  async findByComment(): Promise<TerminalRecord[]> {
    return [];
  }
  async positions(): Promise<TerminalPosition[]> {
    return [];
  }
  async orders(): Promise<TerminalOrder[]> {
    return [];
  }
  /** It keeps no positions and no orders: a close or a modification finds none (10036), nor does a cancel (10013). */
  async closePosition(): Promise<TradeResult> {
    return nothingThere(10036);
  }
  async modifyPosition(): Promise<TradeResult> {
    return nothingThere(10036);
  }
  async cancelOrder(): Promise<TradeResult> {
    return nothingThere(10013);
  }
  async accountInfo(): Promise<TerminalAccount> {
    return { currency: 'USD', balance: 100_000, equity: 100_000, margin: 0, marginFree: 100_000, leverage: 100 };
  }
  async deals(filter: DealFilter): Promise<TerminalDeal[]> {
    this.dealFilters.push(filter);
    if (this.history instanceof Error) throw this.history;
    return this.history.filter((d) => isDealInFilter(filter, d));
  }
}

function nothingThere(retcode: number): TradeResult {
  return { retcode, deal: null, order: null, position: null, volume: '0', price: null, bid: null, ask: null, comment: 'nothing to act on', requestId: null };
}
