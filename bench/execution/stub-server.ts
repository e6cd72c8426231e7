/**
 * The execution app exactly as server.ts builds it (durable SQLite, the real pipeline), on a
 * terminal whose every call costs nothing: isolates the service's own cost from the simulated
 * terminal's (per-symbol running totals and trigger books: a cost per call that does not
 * depend on its open positions).
 */
import type {
  Bar,
  Quote,
  SymbolInfo,
  TerminalAccount,
  TerminalDeal,
  TerminalOrder,
  TerminalPosition,
  TerminalRecord,
  TradeCheckResult,
  TradeRequest,
  TradeResult,
  TradingTerminal,
} from '@fxdesk/broker';
import { simulatedSymbolInfo, symbolSpec } from '@fxdesk/broker';
import { createLogger, databasePath, loadConfig } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { buildApp } from '../../services/execution/src/app.js';
import { ExecutionConfigSchema } from '../../services/execution/src/config.js';
import { openExecutionFile } from '../../services/execution/src/schema.js';
import { DatabaseSignalStore } from '../../services/execution/src/signal-store.js';

const EURUSD: SymbolInfo = simulatedSymbolInfo(symbolSpec('EURUSD')!, 'full');
const CHECK: TradeCheckResult = { retcode: 0, comment: 'Done', balance: 1e9, equity: 1e9, margin: 0, marginFree: 1e9, marginLevel: 0 };
const DONE: TradeResult = {
  retcode: 10009,
  deal: null,
  order: null,
  position: null,
  volume: '0',
  price: null,
  bid: 1.085,
  ask: 1.0851,
  comment: 'Done',
  requestId: null,
};
let ticket = 1;

/** Answers at once, from constants: a stand-in for a terminal of zero cost. */
class ConstantTerminal implements TradingTerminal {
  readonly name = 'constant';
  async connect(): Promise<void> {}
  async close(): Promise<void> {}
  isConnected(): boolean {
    return true;
  }
  onConnectionChange() {
    return () => undefined;
  }
  async symbolInfo(symbol: string): Promise<SymbolInfo | null> {
    return symbol === 'EURUSD' ? EURUSD : null;
  }
  async tick(): Promise<Quote | null> {
    return { symbol: 'EURUSD', bid: 1.085, ask: 1.0851, time: Date.now() };
  }
  async orderCheck(): Promise<TradeCheckResult> {
    return CHECK;
  }
  async orderSend(request: TradeRequest): Promise<TradeResult> {
    const order = String(ticket++);
    return {
      retcode: 10009,
      deal: String(ticket++),
      order,
      position: order,
      volume: request.volume,
      price: request.price ?? null,
      bid: 1.085,
      ask: 1.0851,
      comment: 'Request executed',
      requestId: null,
    };
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
  async closePosition(): Promise<TradeResult> {
    return DONE;
  }
  async modifyPosition(): Promise<TradeResult> {
    return DONE;
  }
  async cancelOrder(): Promise<TradeResult> {
    return DONE;
  }
  async deals(): Promise<TerminalDeal[]> {
    return [];
  }
  async accountInfo(): Promise<TerminalAccount> {
    return { currency: 'USD', balance: 100_000, equity: 100_000, margin: 0, marginFree: 100_000, leverage: 100 };
  }
}

const config = loadConfig(ExecutionConfigSchema, process.env);
const store = new DatabaseSignalStore(openExecutionFile(databasePath(config.DATA_DIR, 'execution')), config.REPLICA_ID);
const close = () => store.close();
const { app } = await buildApp({
  config,
  deps: { clock: systemClock, terminal: new ConstantTerminal(), store, logger: createLogger({ name: 'execution', level: config.LOG_LEVEL }), close },
});
app.addHook('onClose', close);
await app.listen({ host: config.HOST, port: config.PORT });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
