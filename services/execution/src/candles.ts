import { candleOfBar, isBrokerError, type Bar, type TradingTerminal } from '@fxdesk/broker';
import { AppError } from '@fxdesk/core';
import type { TerminalCandles, TerminalCandlesQuery } from '@fxdesk/schemas';
import type { Logger } from 'pino';
import { withDeadline, type Deadline } from './deadline.js';
import { errors } from './errors.js';

export interface CandleReaderOptions {
  terminal: TradingTerminal;
  allowedSymbols: string[];
  /** MAX_CANDLES_LOOKBACK: a larger `count` is clamped to it. */
  maxLookback: number;
  /** A terminal that stops answering rates costs the request a 503, not a hang. */
  deadline: Deadline;
}

/**
 * GET /v1/market-data/candles: the terminal's bars of an allowed symbol, oldest first, closed
 * and forming as the terminal gives them.
 */
export class CandleReader {
  private readonly allowed: Set<string>;

  constructor(private readonly options: CandleReaderOptions) {
    this.allowed = new Set(options.allowedSymbols);
  }

  /** `log` is the request's, so a failed terminal call is logged with its request id. */
  async read({ quote, timeframe, count }: TerminalCandlesQuery, log: Pick<Logger, 'warn'>): Promise<TerminalCandles> {
    const { terminal, maxLookback, deadline } = this.options;
    if (!this.allowed.has(quote)) {
      throw errors.create('symbol_not_allowed', `symbol "${quote}" is not in ALLOWED_SYMBOLS (exact, case-sensitive)`, {
        details: [{ path: 'querystring.quote', message: 'not in ALLOWED_SYMBOLS' }],
      });
    }
    if (!terminal.isConnected()) throw new AppError('not_ready', `the ${terminal.name} terminal is disconnected`, { headers: { 'retry-after': '5' } });
    let bars: Bar[];
    try {
      bars = await withDeadline(() => terminal.rates(quote, timeframe, Math.min(count, maxLookback)), deadline);
    } catch (err) {
      if (isBrokerError(err) && err.kind === 'not_found') {
        throw errors.create('symbol_not_allowed', `the ${terminal.name} terminal does not list ${quote}`);
      }
      log.warn({ err }, 'rates failed');
      throw errors.create('broker_unavailable', `the terminal did not answer rates: ${err instanceof Error ? err.message : String(err)}`, {
        headers: { 'retry-after': '1' },
      });
    }
    // The spread is assigned: on Node 20, `{ ...candleOfBar(bar), spread }` gives every candle a hidden class of its own.
    return { quote, timeframe, candles: bars.map((bar) => Object.assign(candleOfBar(bar), { spread: bar.spread })) };
  }
}
