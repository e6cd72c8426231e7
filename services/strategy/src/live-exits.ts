/**
 * The exit rules on the live account (README "Exits"): the leader runs @fxdesk/trading's
 * exitAtClose, the paper account's and the lab's own code, on each open position of the
 * strategy's orders at each closed candle of its pair, and sends what it decides through the
 * execution service: a stop move (PATCH /v1/positions/{ticket}) or a close. Every action is
 * keyed by what decided it (the position, the candle, the kind), so a retry, a restart or a new
 * leader deciding on the same candle sends the same key, which the execution service answers
 * from its record instead of acting twice.
 */
import { ServiceError, type ExecutionClient } from '@fxdesk/client';
import type { OpenPosition as VenuePosition, StrategySignal } from '@fxdesk/schemas';
import { exitAtClose, isClosedBySignal, markPrice, pricingOf, type ExitRules, type FillCandle, type FillModel, type OpenPosition } from '@fxdesk/trading';
import type { Logger } from 'pino';
import { closeKey, stopKey } from './exit-marks.js';
import type { SignalStore } from './store/index.js';

export interface LiveExitsOptions {
  execution: ExecutionClient;
  signals: SignalStore;
  rules: ExitRules;
  /** The paper account's fill model: its spread for candles without their own, as the paper account marks a close. */
  fills: FillModel;
  /** SIGNAL_SOURCE: only the positions of the strategy's own orders. */
  source: string;
  now: () => number;
  logger: Logger;
}

/** What the leader knows of a pair at a candle close. */
export interface ClosedCandle {
  instrument: string;
  symbol: string;
  digits: number;
  /** The closed candle (mid prices, with its spread when the market gives one). */
  candle: FillCandle;
  /** The Supertrend's ATR after it (NaN unknown). */
  atr: number;
  candleSeconds: number;
}

/** Whether a rule acts at a candle close (the opposite-signal exit acts on a signal). */
const isCloseRuleOn = (r: ExitRules) => r.breakEvenR > 0 || r.trailingStopAtr > 0 || r.trailingStopR > 0 || r.timeExitCandles > 0;

/**
 * The unit's view of a venue position: the entry, the stop now, the signal's stop as the initial
 * one (1 R), and the closed candles it was open through before this one; null without a stop.
 */
export function positionOf(p: VenuePosition, signal: StrategySignal | undefined, candle: ClosedCandle): OpenPosition | null {
  if (p.sl === null) return null;
  const stop = Number(p.sl);
  const entryCandle = Math.floor(Date.parse(p.opened_at) / 1000 / candle.candleSeconds) * candle.candleSeconds;
  return {
    side: p.side === 'buy' ? 1 : -1,
    entry: Number(p.open_price),
    initialStop: signal?.stop_loss ?? stop,
    stop,
    stopReason: 'stop',
    target: p.tp === null ? Number.NaN : Number(p.tp),
    candlesHeld: Math.max(0, Math.round((candle.candle.time - entryCandle) / candle.candleSeconds)),
  };
}

export class LiveExits {
  constructor(private readonly o: LiveExitsOptions) {}

  /** At a candle close of the pair: each open position of the strategy's through the exit rules, and what they decide sent. */
  async onClose(candle: ClosedCandle): Promise<void> {
    const rules = this.o.rules;
    if (!isCloseRuleOn(rules)) return;
    const positions = await this.positions(candle.symbol);
    if (positions.length === 0) return;
    const signals = await this.o.signals.byPositions(positions.map((p) => p.ticket));
    for (const p of positions) {
      // A position opened after this candle ended has no close of it to act on yet.
      if ((candle.candle.time + candle.candleSeconds) * 1000 <= Date.parse(p.opened_at)) continue;
      const position = positionOf(p, signals.get(p.ticket), candle);
      if (!position) continue;
      // Marked as the paper account marks it: the close on the side that would close it (a LONG's bid).
      const close = markPrice(position.side, candle.candle, pricingOf(candle.digits, this.o.fills));
      const action = exitAtClose(position, close, candle.atr, rules, candle.digits);
      if (action === 'time') {
        await this.act(() => this.o.execution.closePosition(p.ticket, closeKey('time', p.ticket)), 'time exit', p);
      } else if (action === 'move_stop' && position.stopReason !== 'stop') {
        // On the pair's grid already (exitAtClose rounds it away from the market): written with its digits.
        const sl = position.stop.toFixed(candle.digits);
        const reason = position.stopReason;
        // The key names the rule, so the journal names a hit of this stop by it (exit-marks.ts).
        await this.act(() => this.o.execution.modifyPosition(p.ticket, stopKey(reason, p.ticket, candle.candle.time), { sl }), `stop to ${sl} (${reason})`, p);
      }
    }
  }

  /**
   * A new signal of the pair, before it is sized and asked of the limits: with
   * EXIT_ON_OPPOSITE_SIGNAL the strategy's positions of the other side are closed first (one
   * position per pair is the risk book's, live-entries.ts).
   */
  async onSignal(signal: StrategySignal): Promise<void> {
    if (!this.o.rules.exitOnOppositeSignal) return;
    const side = signal.type === 'LONG' ? 1 : -1;
    for (const p of await this.positions(signal.symbol)) {
      if (isClosedBySignal(p.side === 'buy' ? 1 : -1, side, this.o.rules)) {
        await this.act(() => this.o.execution.closePosition(p.ticket, closeKey('opposite_signal', p.ticket)), 'opposite-signal exit', p);
      }
    }
  }

  private async positions(symbol: string): Promise<VenuePosition[]> {
    try {
      return (await this.o.execution.positions({ symbol, source: this.o.source })).positions;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      this.o.logger.warn({ err, symbol }, 'exit rules: the open positions could not be read; the rules run again at the next close');
      return [];
    }
  }

  /** Sends one action, whether it was done; a refusal or an unknown outcome is logged (never resent under another key). */
  private async act(send: () => Promise<unknown>, what: string, p: VenuePosition): Promise<boolean> {
    try {
      await send();
      this.o.logger.info({ ticket: p.ticket, symbol: p.symbol }, `exit rules: ${what}`);
      return true;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      this.o.logger.warn({ err, ticket: p.ticket, symbol: p.symbol }, `exit rules: ${what} failed (${err.code})`);
      return false;
    }
  }
}
