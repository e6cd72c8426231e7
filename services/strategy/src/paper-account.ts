import { instrumentToSymbol, simulatedSymbolInfo, symbolSpec } from '@fxdesk/broker';
import type { Clock } from '@fxdesk/primitives';
import type { SignalExecution, StopClosed, StrategyAccount, StrategySignal } from '@fxdesk/schemas';
import {
  baseToAccountOf,
  closeAtOpen,
  fitsMargin,
  marginOf,
  commissionOf,
  markPrice,
  contractSize,
  PairPosition,
  pnlOf,
  pricingOf,
  rMultipleOf,
  volumeLots,
  type ExitReason,
  type ExitRules,
  type FillCandle,
  type FillModel,
  type PositionHooks,
  type VolumeTerms,
} from '@fxdesk/trading';
import type { StrategyConfig } from './config.js';
import { entrySize, type SizingSettings } from './entry-sizing.js';
import type { EventHub } from './event-hub.js';
import { refusalOf, skippedExecution, type EntryRisk, type EntrySkip } from './live-entries.js';
import type { RuleCandle } from './signal-rule.js';
import type { PaperTrade, PaperTradeStore, SignalStore } from './store/index.js';
import type { PaperPosition } from './store/paper-trades.js';

export { contractSize };

/** The paper account's currency: P/L and margin are converted to it. */
export const PAPER_CURRENCY = 'USD';

export interface PaperAccountOptions {
  trades: PaperTradeStore;
  clock: Clock;
  startBalance: number;
  leverage: number;
  /** The lab's fill model: PAPER_SPREAD_POINTS, PAPER_SLIPPAGE_POINTS, PAPER_COMMISSION_PER_LOT, TRADE_VOLUME lots. */
  fills: FillModel;
  /** The exit rules (the config's). */
  exits: ExitRules;
  /** Units of `to` per unit of `from` at the latest prices, when the market knows them. */
  rate: (from: string, to: string) => number | undefined;
  /** Told when a trade opens or closes (the balance, equity and margin moved). */
  events: Pick<EventHub, 'statusChanged'>;
  /** SIZING and RISK_PERCENT; absent: the fill model's lots. */
  sizing?: SizingSettings;
  /** The desk's risk state, asked before each entry and told each entry, exit and the equity at each close. */
  risk?: EntryRisk;
  /** Where a signal the limits or the sizing skip at its entry is recorded skipped. */
  signals?: Pick<SignalStore, 'find' | 'updateExecution'>;
  /** The latest price of a pair, for the equity a sizing by risk reads (the entry price when unknown). */
  priceOf?: (instrument: string) => number | null;
  /**
   * The volume terms a sizing by risk reads at an entry, from the venue the desk trades (the lab's
   * source: the execution service's, capped at its largest order, else the simulated terminal's);
   * null: it did not answer (the entry is skipped, no_volume_terms). Absent: the simulated terminal's.
   */
  terms?: (instrument: string) => Promise<VolumeTerms | null>;
}

/** The volume terms the simulated terminal gives a symbol (MT5 symbol_info): the paper account's venue. */
export function simulatedTermsOf(instrument: string): VolumeTerms | null {
  const spec = symbolSpec(instrumentToSymbol(instrument) ?? instrument.replace('_', ''));
  if (!spec) return null;
  const info = simulatedSymbolInfo(spec, 'full');
  return { contractSize: info.contractSize, volumeMin: info.volumeMin, volumeMax: info.volumeMax, volumeStep: info.volumeStep, stopsLevel: info.stopsLevel };
}

/** The paper account's fill model from its settings (also a backtest's fill_model defaults): TRADE_VOLUME lots. */
export function paperFillsOf(
  config: Pick<StrategyConfig, 'PAPER_SPREAD_POINTS' | 'PAPER_SLIPPAGE_POINTS' | 'PAPER_COMMISSION_PER_LOT' | 'TRADE_VOLUME'>,
): FillModel {
  return {
    spread_points: config.PAPER_SPREAD_POINTS ?? null,
    slippage_points: config.PAPER_SLIPPAGE_POINTS,
    commission_per_lot: config.PAPER_COMMISSION_PER_LOT,
    volume: { lots: Number(config.TRADE_VOLUME) },
  };
}

/** What a dry_run signal does to the paper account, written with the signal in one write. */
export interface PaperEntry {
  /** The trade it opens, waiting for the next candle's open; absent when it is skipped. */
  trade?: PaperTrade;
  /** Why it opens nothing: a position open (or an entry waiting) on the pair, as live and the lab say. */
  skipped?: { skipped: 'position_open'; detail: string };
  /** The open trade it closes at that open (EXIT_ON_OPPOSITE_SIGNAL). */
  closes?: string;
}

const round2 = (v: number) => Math.round(v * 100) / 100;
/** Closes marked per pair: a pair whose candles run a few ahead of another's still has the one before that one's entry. */
const MARKS_KEPT = 4;

/** Why a waiting entry opened nothing at the open, as a signal's record says it. */
const SKIP_DETAIL: Record<'position_open' | 'invalid_stops', (instrument: string) => string> = {
  position_open: (instrument) => `a position on ${instrument} is still open at the next open`,
  invalid_stops: (instrument) => `the venue would refuse the stop or the target of ${instrument} at the next open (its side or stops level)`,
};

/** A stored trade with its position's state now, the candles applied up to `lastCandleTime`. */
function stateOf(row: PaperPosition, position: PairPosition, lastCandleTime: number): PaperPosition {
  return {
    ...row,
    entry: position.entry,
    units: position.lots * contractSize(row.instrument),
    entryTime: position.entryTime,
    stop: position.stop,
    stopReason: position.stopReason,
    candlesHeld: position.candlesHeld,
    lastCandleTime,
    closing: position.closing,
    volumeLots: position.lots,
  };
}

/**
 * The account that dry_run signals trade (README "Paper trading"), with the lab's fill model and
 * exit rules (@fxdesk/trading's PairPosition, driven as a backtest drives it): a signal waits for
 * the next candle's open, enters at the ask (LONG) or bid (SHORT) and the slippage, meets its stop
 * (first) and target within each candle, its exit rules at each close, one position per pair.
 * Trades live in the store, so the balance and each position's state survive a restart.
 */
export class PaperAccount {
  /** The pairs' candles, one pair at a time: an entry reads the balance after every close before it, as the lab's does. */
  private candleTurn: Promise<unknown> = Promise.resolve();
  /**
   * Each pair's floating P/L after its last few candle closes (newest last; 0 while flat), for the
   * equity an entry is sized on: the equity at the previous close of every pair, as the lab's.
   */
  private readonly marks = new Map<string, Array<{ time: number; floating: number }>>();

  constructor(private readonly o: PaperAccountOptions) {}

  /** What a dry_run signal opens or closes: the pair's position (from the store) takes the signal as the lab's would. */
  async entryOf(signal: StrategySignal, digits: number): Promise<PaperEntry> {
    const positions = await this.o.trades.positions(signal.instrument);
    const { position } = this.restored(positions, digits, 0, { skipped: () => {} });
    const open = positions.find((p) => p.entryTime !== null);
    const wasClosing = position.closing;
    position.onSignal(signal.type === 'LONG' ? 1 : -1, signal.entry_price, signal.stop_loss, signal.take_profit, Date.parse(signal.candle_time) / 1000);
    // Refused (PairPosition's skipped): an entry already waits. One on a position still open at the next open is skipped there (applyCandles).
    if (!position.hasPending || positions.some((p) => p.entryTime === null)) {
      return { skipped: { skipped: 'position_open', detail: `a position on ${signal.instrument} is open` } };
    }
    const trade: PaperTrade = {
      signalId: signal.signal_id,
      instrument: signal.instrument,
      side: signal.type === 'LONG' ? 1 : -1,
      units: this.lots() * contractSize(signal.instrument),
      entry: signal.entry_price,
      stopLoss: signal.stop_loss,
      takeProfit: signal.take_profit,
      candleTime: Date.parse(signal.candle_time) / 1000,
      openedAt: signal.generated_at,
    };
    return open && wasClosing === null && position.closing !== null ? { trade, closes: open.signalId } : { trade };
  }

  /**
   * The pair's closed candles (oldest first) with the Supertrend's ATR after each (NaN unknown)
   * through its paper position: entries, exits and stop moves, each written once; candles at or
   * before the last one applied change nothing.
   */
  onCandles(instrument: string, digits: number, candles: readonly RuleCandle[], atrs: readonly number[]): Promise<void> {
    const applied = this.candleTurn.then(() => this.applyCandles(instrument, digits, candles, atrs));
    this.candleTurn = applied.catch(() => undefined);
    return applied;
  }

  private async applyCandles(instrument: string, digits: number, candles: readonly RuleCandle[], atrs: readonly number[]): Promise<void> {
    const positions = await this.o.trades.positions(instrument);
    if (positions.length === 0) return this.markFlat(instrument, candles.at(-1));
    const writes: Array<() => Promise<void>> = [];
    let touched = false;
    // The last candle applied; a waiting entry fills on the first one after it.
    let last = Math.max(...positions.map((p) => p.lastCandleTime));
    const entryAt = positions.some((p) => p.entryTime === null) ? candles.find((c) => c.time > last)?.time : undefined;
    const account = entryAt === undefined ? null : await this.accountBefore(entryAt, instrument);
    // The equity the limits mark, moved by this call's closes (the pair is flat after each close).
    let equity = this.o.risk ? await this.equityBesides(instrument) : 0;
    let refusal: { skipped: EntrySkip; detail: string } | null = null;
    // Read before the candles, when an entry waits: the venue's terms now, as live reads them at its signal.
    const terms = this.o.sizing?.riskPercent != null && positions.some((p) => p.entryTime === null) ? await this.termsOf(instrument) : null;
    const { position, ids } = this.restored(positions, digits, terms?.stopsLevel, {
      lotsFor: (side, entry, stop, candle) => {
        const decided = this.lotsAt(instrument, side, entry, stop, candle, account ?? { equity: 0, usedMargin: 0 }, terms);
        refusal = 'skipped' in decided ? decided : null;
        return 'lots' in decided ? decided.lots : 0;
      },
      skipped: (skip) => {
        const id = ids.pending;
        const why = skip === 'no_lots' ? refusal : { skipped: skip, detail: SKIP_DETAIL[skip](instrument) };
        writes.push(async () => {
          await this.o.trades.drop(id);
          if (why) await this.recordSkipped(id, why);
        });
      },
      entered: () => {
        ids.open = ids.pending;
        this.o.risk?.opened('paper', ids.open, { instrument, side: position.side, lots: position.lots });
        touched = true;
      },
      exited: (candle, price, reason) => {
        const entered = stateOf(rowOf(ids.open), position, candle.time);
        const closed = this.closed(instrument, position, candle, price, reason);
        equity += closed.pnl;
        const told = this.o.risk?.closed('paper', ids.open, closed.pnl, candle.time * 1000);
        writes.push(async () => {
          await this.o.trades.keep(entered);
          await this.o.trades.closePaperTrade(entered.signalId, price, closed.pnl, new Date(this.o.clock.now()).toISOString(), closed);
          await told;
        });
        touched = true;
      },
    });
    const rowOf = (id: string) => positions.find((p) => p.signalId === id)!;
    const marks: Array<Promise<unknown>> = [];
    candles.forEach((candle, i) => {
      if (candle.time <= last) return;
      last = candle.time;
      position.onCandle(candle);
      position.onClose(candle, atrs[i] ?? Number.NaN);
      const floating = this.floating(instrument, position, candle, digits);
      this.mark(instrument, candle.time, floating);
      // The equity after each candle, its position marked at the close, as a backtest marks it: the daily loss and the drawdown.
      if (this.o.risk) marks.push(this.o.risk.markEquity('paper', candle.time * 1000, equity + floating));
    });
    writes.push(async () => void (await Promise.all(marks)));
    const pending = positions.find((p) => p.entryTime === null);
    if (pending && position.hasPending) writes.push(() => this.o.trades.keep({ ...pending, lastCandleTime: last }));
    if (position.isOpen) {
      const state = stateOf(rowOf(ids.open), position, last);
      writes.push(() => this.o.trades.keep(state));
    }
    for (const write of writes) await write();
    if (touched) this.o.events.statusChanged();
  }

  /**
   * Closes every entered paper trade now, at the market (`quoteOf`: the pair's latest price and
   * digits), as a market order fills at an open: a LONG at the bid less the slippage, a SHORT at
   * the ask plus it; each journaled with `reason`. Trades still waiting for their entry are
   * dropped. What it closed, and what it could not (no price for the pair).
   */
  async flatten(quoteOf: (instrument: string) => { price: number; digits: number } | null, reason: ExitReason): Promise<StopClosed['positions']> {
    const positions = await this.o.trades.positions();
    const outcomes: StopClosed['positions'] = [];
    for (const p of positions.filter((p) => p.entryTime === null)) await this.o.trades.drop(p.signalId);
    for (const open of positions.filter((p) => p.entryTime !== null)) {
      const quote = quoteOf(open.instrument);
      if (!quote) {
        outcomes.push({ ticket: open.signalId, state: 'failed', message: `no price for ${open.instrument} yet: the trade stays open` });
        continue;
      }
      let exit: { price: number; closed: ReturnType<PaperAccount['closed']> } | undefined;
      const { position } = this.restored([open], quote.digits, 0, {
        exited: (candle, price, why) => (exit = { price, closed: this.closed(open.instrument, position, candle, price, why) }),
      });
      const candle = { time: Math.floor(this.o.clock.now() / 1000), open: quote.price, high: quote.price, low: quote.price, close: quote.price };
      position.closeNow(candle, closeAtOpen(open.side, candle, pricingOf(quote.digits, this.o.fills)), reason);
      if (!exit) continue;
      await this.o.trades.closePaperTrade(open.signalId, exit.price, exit.closed.pnl, new Date(this.o.clock.now()).toISOString(), exit.closed);
      await this.o.risk?.closed('paper', open.signalId, exit.closed.pnl, this.o.clock.now());
      outcomes.push({ ticket: open.signalId, state: 'done', message: null });
    }
    if (positions.length > 0) this.o.events.statusChanged();
    return outcomes;
  }

  /** Balance, equity and margin, marking the entered trades at `priceOf` (their entry when unknown). */
  async snapshot(priceOf: (instrument: string) => number | null): Promise<StrategyAccount> {
    const [realized, positions] = await Promise.all([this.o.trades.realizedPaperPnl(), this.o.trades.positions()]);
    const balance = this.o.startBalance + realized;
    let unrealized = 0;
    let marginUsed = 0;
    for (const trade of positions.filter((p) => p.entryTime !== null)) {
      const price = priceOf(trade.instrument) ?? trade.entry;
      unrealized += this.toAccount(trade.side * (price - trade.entry) * trade.units, trade.instrument, price);
      marginUsed += (trade.units * this.baseInAccount(trade.instrument, price)) / this.o.leverage;
    }
    const equity = balance + unrealized;
    return { balance: round2(balance), equity: round2(equity), margin_used: round2(marginUsed), margin_available: round2(equity - marginUsed) };
  }

  /**
   * What an entry of `instrument` filling on the candle of `timeSec` is sized on and must fit its
   * margin in, from one read of the trades:
   * - the equity after the last close of every pair before that candle, whatever order the pairs'
   *   candles come in: the balance of the trades closed before it and each pair's floating P/L at
   *   that close (a pair with no close marked since the process started, a restart, has its trade
   *   marked at `priceOf`);
   * - the margin the other pairs' entered trades hold: each at its fill price, at the leverage.
   */
  private async accountBefore(timeSec: number, instrument: string): Promise<{ equity: number; usedMargin: number }> {
    const [realized, positions] = await Promise.all([this.o.trades.realizedPaperPnl(timeSec), this.o.trades.positions()]);
    let equity = this.o.startBalance + realized;
    let usedMargin = 0;
    for (const [, marks] of this.marks) equity += marks.findLast((m) => m.time < timeSec)?.floating ?? 0;
    for (const trade of positions) {
      if (trade.entryTime === null) continue;
      if (trade.instrument !== instrument) {
        const baseToAccount = baseToAccountOf(trade.instrument, PAPER_CURRENCY, trade.entry, this.rateAt(trade.instrument, trade.entry));
        usedMargin += marginOf(trade.units / contractSize(trade.instrument), contractSize(trade.instrument), baseToAccount, this.o.leverage);
      }
      if (trade.entryTime >= timeSec || this.marks.get(trade.instrument)?.some((m) => m.time < timeSec)) continue;
      equity += this.floatingNow(trade);
    }
    return { equity, usedMargin };
  }

  /**
   * A pair with nothing open or waiting marks the equity at its newest close too (once), as a
   * backtest marks every time's: the trading day's start equity and the peak are then the lab's,
   * not the first mark of a trade that opened later in the day.
   */
  private async markFlat(instrument: string, newest: RuleCandle | undefined): Promise<void> {
    if (!newest || newest.time <= (this.marks.get(instrument)?.at(-1)?.time ?? Number.NEGATIVE_INFINITY)) return;
    this.mark(instrument, newest.time, 0);
    if (this.o.risk) await this.o.risk.markEquity('paper', newest.time * 1000, await this.equityBesides(instrument));
  }

  private mark(instrument: string, time: number, floating: number): void {
    let marks = this.marks.get(instrument);
    if (!marks) this.marks.set(instrument, (marks = []));
    marks.push({ time, floating });
    if (marks.length > MARKS_KEPT) marks.shift();
  }

  /** The balance and the floating P/L of the other pairs' trades (marked at `priceOf`, their entry when unknown). */
  private async equityBesides(instrument: string): Promise<number> {
    const [realized, positions] = await Promise.all([this.o.trades.realizedPaperPnl(), this.o.trades.positions()]);
    let equity = this.o.startBalance + realized;
    for (const trade of positions.filter((p) => p.entryTime !== null && p.instrument !== instrument)) equity += this.floatingNow(trade);
    return equity;
  }

  /** An entered trade's floating P/L at its pair's latest price (`priceOf`; its entry when unknown). */
  private floatingNow(trade: PaperPosition): number {
    const price = this.o.priceOf?.(trade.instrument) ?? trade.entry;
    return this.toAccount(trade.side * (price - trade.entry) * trade.units, trade.instrument, price);
  }

  /**
   * The pair's position as the store keeps it, driving `hooks`, and the ids of its open and its
   * waiting trade; its entries checked against the venue's stops level (points) when it is known.
   */
  private restored(positions: readonly PaperPosition[], digits: number, stopsLevel: number | undefined, hooks: Partial<PositionHooks>) {
    const open = positions.find((p) => p.entryTime !== null) ?? null;
    const pending = positions.find((p) => p.entryTime === null) ?? null;
    const ids = { open: open?.signalId ?? '', pending: pending?.signalId ?? '' };
    const position = new PairPosition(pricingOf(digits, this.o.fills, stopsLevel), this.o.exits, digits, {
      lotsFor: () => this.lots(),
      entered: () => {},
      exited: () => {},
      skipped: () => {},
      ...hooks,
    });
    position.restore(
      open && {
        side: open.side,
        entry: open.entry,
        initialStop: open.stopLoss,
        stop: open.stop,
        stopReason: open.stopReason,
        target: open.takeProfit,
        candlesHeld: open.candlesHeld,
        lots: open.volumeLots ?? open.units / contractSize(open.instrument),
        entryTime: open.entryTime!,
        signalTime: open.candleTime,
        closing: open.closing,
      },
      pending && { side: pending.side, entry: pending.entry, stop: pending.stopLoss, target: pending.takeProfit, signalTime: pending.candleTime },
    );
    return { position, ids };
  }

  /** TRADE_VOLUME lots, on the volume step. */
  private lots(): number {
    return volumeLots(this.o.fills.volume, 0, 0);
  }

  private async termsOf(instrument: string): Promise<VolumeTerms | null> {
    return this.o.terms ? this.o.terms(instrument) : simulatedTermsOf(instrument);
  }

  /**
   * The lots of an entry decided at `entry` filling on `candle` (entry-sizing.ts, as live sizes:
   * the paper equity, the venue's terms, the rate at the open), then the risk limits at its open.
   */
  private lotsAt(
    instrument: string,
    side: 1 | -1,
    entry: number,
    stop: number,
    candle: FillCandle,
    account: { equity: number; usedMargin: number },
    terms: VolumeTerms | null,
  ): { lots: number } | { skipped: EntrySkip; detail: string } {
    const { sizing, risk } = this.o;
    const { equity, usedMargin } = account;
    const quoteToAccount = this.rateAt(instrument, candle.open);
    const sources = sizing?.riskPercent != null ? { equity, terms, quoteToAccount } : null;
    const sized = sizing ? entrySize(sizing, entry, stop, sources) : { lots: String(this.lots()) };
    if ('skipped' in sized) return sized;
    const lots = Number(sized.lots);
    const verdict = risk?.check('paper', { instrument, side, lots }, candle.time * 1000);
    if (verdict && !verdict.ok) return refusalOf(verdict, risk?.haltOf('paper') ?? null);
    // The venue's own check, after the desk's (as the lab makes it): the margin at the signal's entry price within the free margin.
    const required = marginOf(lots, contractSize(instrument), baseToAccountOf(instrument, PAPER_CURRENCY, entry, quoteToAccount), this.o.leverage);
    if (!fitsMargin(required, equity, usedMargin)) {
      return {
        skipped: 'insufficient_margin',
        detail: `${lots} lots hold ${required.toFixed(2)} ${PAPER_CURRENCY} of margin at ${this.o.leverage}:1; free: ${(equity - usedMargin).toFixed(2)}`,
      };
    }
    return { lots };
  }

  /** The open position's floating P/L at the candle's close (marked on the side that would close it), in the account currency; 0 when flat. */
  private floating(instrument: string, position: PairPosition, candle: FillCandle, digits: number): number {
    if (!position.isOpen) return 0;
    const price = markPrice(position.side, candle, pricingOf(digits, this.o.fills));
    return this.toAccount(position.side * (price - position.entry) * position.lots * contractSize(instrument), instrument, candle.close);
  }

  /** A signal whose entry the limits or the sizing skipped, recorded so (on /signals and the console). */
  private async recordSkipped(signalId: string, why: { skipped: EntrySkip; detail: string }): Promise<void> {
    const signal = await this.o.signals?.find(signalId);
    if (!signal) return;
    const execution: SignalExecution = skippedExecution(signal.execution, why, this.o.clock.now(), 'no paper trade opened');
    await this.o.signals?.updateExecution(signal, execution);
  }

  /** A close's P/L, commission and R multiple, as the lab books them (converted at the exit candle's close for a USD-based pair). */
  private closed(instrument: string, position: PairPosition, candle: FillCandle, price: number, reason: ExitReason) {
    const units = position.lots * contractSize(instrument);
    const rate = this.rateAt(instrument, candle.close);
    const commission = commissionOf(this.o.fills, position.lots);
    const pnl = pnlOf(position.side, position.entry, price, units, rate, commission);
    return { pnl, reason, exitTime: candle.time, commission, rMultiple: rMultipleOf(pnl, position.entry, position.initialStop, units, rate) };
  }

  /** Account currency per unit of the instrument's quote currency, the pair's own price being `price`. */
  private rateAt(instrument: string, price: number): number {
    const [base, quote] = instrument.split('_') as [string, string];
    if (quote === PAPER_CURRENCY) return 1;
    if (base === PAPER_CURRENCY) return 1 / price;
    return this.o.rate(quote, PAPER_CURRENCY) ?? 1;
  }

  /** An amount in the instrument's quote currency, in the account currency. */
  private toAccount(amount: number, instrument: string, price: number): number {
    return amount * this.rateAt(instrument, price);
  }

  /** One unit of the instrument's base currency, in the account currency. */
  private baseInAccount(instrument: string, price: number): number {
    const [base, quote] = instrument.split('_') as [string, string];
    if (base === PAPER_CURRENCY) return 1;
    if (quote === PAPER_CURRENCY) return price;
    return this.o.rate(base, PAPER_CURRENCY) ?? price * (this.o.rate(quote, PAPER_CURRENCY) ?? 1);
  }
}
