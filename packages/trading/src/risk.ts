/**
 * The desk's limits before every entry and its kill switch (issue 24), pure: `RiskBook` keeps
 * what the limits need (the open positions' lots, the equity's peak and the day's start, the run
 * of losses, the halt) from the events it is told, and answers whether an entry may go out. The
 * live leader, the paper account and the lab each keep one and tell it the same events, so the
 * three refuse the same signals.
 */

export interface RiskLimits {
  /** At most one open position per pair (the lab's rule, and the default). */
  onePositionPerPair: boolean;
  /** MAX_OPEN_TRADES: open positions in all; null = no limit. */
  maxOpenTrades: number | null;
  /** Net lots long or short in any one currency, summed across pairs; null = no limit. */
  maxCurrencyExposureLots: number | null;
  /** DAILY_LOSS_LIMIT: % of the trading day's starting equity; reaching it halts the desk. */
  dailyLossLimitPercent: number | null;
  /** MAX_DRAWDOWN: % below the equity's peak; reaching it halts the desk. */
  maxDrawdownPercent: number | null;
  /** After `losses` losing trades in a row, no entry for `candles` candles from the last one's exit. */
  cooldown: { losses: number; candles: number } | null;
}

export const RISK_LIMITS_OFF: RiskLimits = {
  onePositionPerPair: true,
  maxOpenTrades: null,
  maxCurrencyExposureLots: null,
  dailyLossLimitPercent: null,
  maxDrawdownPercent: null,
  cooldown: null,
};

export const RISK_SKIPS = ['halted', 'position_open_on_pair', 'max_open_trades', 'currency_exposure', 'cooldown'] as const;
export type RiskSkip = (typeof RISK_SKIPS)[number];
export const HALT_REASONS = ['daily_loss_limit', 'max_drawdown'] as const;
export type HaltReason = (typeof HALT_REASONS)[number];

export interface RiskEntry {
  /** `EUR_USD`: its two currencies are counted in the exposure. */
  instrument: string;
  side: 1 | -1;
  lots: number;
}

export type RiskVerdict = { ok: true } | { ok: false; skip: RiskSkip; detail: string };

export interface Halt {
  reason: HaltReason;
  /** Epoch ms. */
  at: number;
  detail: string;
}

/** What a store keeps so the halt, the peak and the day survive a restart and a failover. */
export interface RiskState {
  halt: Halt | null;
  equityPeak: number | null;
  /** The trading day (`YYYY-MM-DD`) the start equity is of. */
  day: string | null;
  dayStartEquity: number | null;
  consecutiveLosses: number;
  /** Epoch ms until which the cooldown holds entries; null when none. */
  cooldownUntil: number | null;
}

export interface RiskBookOptions {
  limits: RiskLimits;
  /** Length of one candle, ms: the cooldown counts candles. */
  candleMs: number;
  /** The hour (0–23, in `timeZone`) a trading day starts: 17:00 New York as the FX market counts it. */
  dayRollHour?: number;
  timeZone?: string;
  state?: RiskState;
}

const HOUR_MS = 3_600_000;
const QUARTER_HOUR_MS = 900_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The trading day of an instant, named by the date on which it ends: with the day rolling at
 * 17:00 New York, Monday's day runs from Sunday 17:00 to Monday 17:00 New York time, summer and
 * winter alike (the shift to midnight crosses no DST change, which New York makes at 02:00).
 */
export function tradingDayOf(ms: number, rollHour = 17, timeZone = 'America/New_York'): string {
  let year = '';
  let month = '';
  let day = '';
  for (const part of dayFormat(timeZone).formatToParts(new Date(ms + ((24 - rollHour) % 24) * HOUR_MS))) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  return `${year}-${month}-${day}`;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formats.set(timeZone, format);
  }
  return format;
}

const fixed = (v: number) => v.toFixed(2);
/** An amount of money in whole cents, as the limits compare it. */
const cents = (amount: number) => Math.round(amount * 100);

export class RiskBook {
  private readonly limits: RiskLimits;
  private readonly candleMs: number;
  private readonly rollHour: number;
  private readonly timeZone: string;
  private readonly open = new Map<string, RiskEntry>();
  private state: RiskState;
  /**
   * The instants [dayFromMs, dayUntilMs) known to be in `state.day`: a mark within them needs no
   * Intl (the lab marks every candle time, and formatToParts costs microseconds and allocates).
   */
  private dayFromMs = Number.NaN;
  private dayUntilMs = Number.NaN;

  constructor(options: RiskBookOptions) {
    this.limits = options.limits;
    this.candleMs = options.candleMs;
    this.rollHour = options.dayRollHour ?? 17;
    this.timeZone = options.timeZone ?? 'America/New_York';
    this.state = options.state
      ? { ...options.state }
      : { halt: null, equityPeak: null, day: null, dayStartEquity: null, consecutiveLosses: 0, cooldownUntil: null };
  }

  /** A copy of what a store keeps. */
  snapshot(): RiskState {
    return { ...this.state };
  }

  get halt(): Halt | null {
    return this.state.halt;
  }

  /**
   * The equity at `ms` (with the open positions' floating P/L): moves the peak and, on a new
   * trading day, the day's start; returns the halt when this mark newly reaches the daily loss
   * limit or the drawdown, else null. A halt holds until `resume`.
   */
  markEquity(ms: number, equity: number): Halt | null {
    const s = this.state;
    if (!(ms >= this.dayFromMs && ms < this.dayUntilMs)) {
      const day = tradingDayOf(ms, this.rollHour, this.timeZone);
      this.dayFromMs = ms;
      this.dayUntilMs = this.dayEndAfter(ms, day, this.dayUntilMs + DAY_MS);
      if (s.day !== day) {
        s.day = day;
        s.dayStartEquity = equity;
      }
    }
    if (s.equityPeak === null || equity > s.equityPeak) s.equityPeak = equity;
    if (s.halt) return null;
    const { dailyLossLimitPercent: daily, maxDrawdownPercent: drawdown } = this.limits;
    const dayStart = s.dayStartEquity as number;
    const dayLoss = dayStart - equity;
    // Money in whole cents: equities summed in another order (a store's SUM, a running balance) differ in their last bits.
    if (daily !== null && dayStart > 0 && cents(dayLoss) >= cents((dayStart * daily) / 100)) {
      s.halt = { reason: 'daily_loss_limit', at: ms, detail: `lost ${fixed(dayLoss)} of the day's ${fixed(dayStart)}: the limit is ${daily}%` };
    } else if (drawdown !== null && s.equityPeak > 0 && cents(s.equityPeak - equity) >= cents((s.equityPeak * drawdown) / 100)) {
      s.halt = { reason: 'max_drawdown', at: ms, detail: `${fixed(s.equityPeak - equity)} below the peak ${fixed(s.equityPeak)}: the limit is ${drawdown}%` };
    }
    return s.halt;
  }

  /**
   * The first instant after `ms` of a later trading day than `day`. A day rolls on a whole quarter
   * hour of UTC (every zone's offset is a multiple of 15 minutes) within 25 hours (a DST day), so a
   * search over those quarter hours finds it in a few looks. `guess` is looked at first: a day
   * mostly ends 24 hours after the one before (all but a DST change), which two looks confirm.
   */
  private dayEndAfter(ms: number, day: string, guess: number): number {
    const { rollHour, timeZone } = this;
    if (guess > ms && tradingDayOf(guess - 1, rollHour, timeZone) === day && tradingDayOf(guess, rollHour, timeZone) !== day) return guess;
    let low = Math.floor(ms / QUARTER_HOUR_MS); // in `day`
    let high = low + 25 * 4 + 1; // past it
    while (high - low > 1) {
      const mid = (low + high) >>> 1;
      if (tradingDayOf(mid * QUARTER_HOUR_MS, this.rollHour, this.timeZone) === day) low = mid;
      else high = mid;
    }
    return high * QUARTER_HOUR_MS;
  }

  /** A person's resume (POST /risk/resume): entries go out again; the day and the peak restart from `equity`. */
  resume(ms: number, equity: number): void {
    this.state = { ...this.state, halt: null, equityPeak: equity, day: tradingDayOf(ms, this.rollHour, this.timeZone), dayStartEquity: equity };
    this.dayFromMs = Number.NaN;
  }

  /** Whether an entry may go out at `ms`, checked in the order a trader reads them: the halt first. */
  check(entry: RiskEntry, ms: number): RiskVerdict {
    const { limits, state } = this;
    if (state.halt) return { ok: false, skip: 'halted', detail: `halted by ${state.halt.reason}: ${state.halt.detail}` };
    if (limits.onePositionPerPair && this.isOpenOn(entry.instrument)) {
      return { ok: false, skip: 'position_open_on_pair', detail: `a position on ${entry.instrument} is open` };
    }
    if (limits.maxOpenTrades !== null && this.open.size >= limits.maxOpenTrades) {
      return { ok: false, skip: 'max_open_trades', detail: `${this.open.size} open, the limit is ${limits.maxOpenTrades}` };
    }
    if (limits.maxCurrencyExposureLots !== null) {
      for (const [currency, sign] of legsOf(entry)) {
        const after = this.netLots(currency) + sign * entry.lots;
        if (Math.abs(after) > limits.maxCurrencyExposureLots + 1e-9) {
          return {
            ok: false,
            skip: 'currency_exposure',
            detail: `${currency} would be ${after.toFixed(2)} lots net, the limit is ${limits.maxCurrencyExposureLots}`,
          };
        }
      }
    }
    if (state.cooldownUntil !== null && ms < state.cooldownUntil) {
      return {
        ok: false,
        skip: 'cooldown',
        detail: `${limits.cooldown?.losses ?? 0} losses in a row: no entry until ${new Date(state.cooldownUntil).toISOString()}`,
      };
    }
    return { ok: true };
  }

  /** A position opened (its lots count in the exposure until `closed`). */
  opened(id: string, entry: RiskEntry): void {
    this.open.set(id, entry);
  }

  /** A position counted open that never opened (its order refused or cancelled): it leaves the count; the run of losses stays as it was. */
  dropped(id: string): void {
    this.open.delete(id);
  }

  /** A position closed at `exitMs` with `pnl` (net, account currency): a loss extends the run, anything else ends it. */
  closed(id: string, pnl: number, exitMs: number): void {
    this.open.delete(id);
    const s = this.state;
    s.consecutiveLosses = pnl < 0 ? s.consecutiveLosses + 1 : 0;
    const { cooldown } = this.limits;
    if (cooldown && s.consecutiveLosses >= cooldown.losses) {
      s.cooldownUntil = exitMs + cooldown.candles * this.candleMs;
      s.consecutiveLosses = 0;
    }
  }

  private isOpenOn(instrument: string): boolean {
    for (const position of this.open.values()) if (position.instrument === instrument) return true;
    return false;
  }

  /** The open positions' net lots in `currency` (exposure's, for one currency). */
  private netLots(currency: string): number {
    let net = 0;
    for (const position of this.open.values()) {
      for (const [leg, sign] of legsOf(position)) if (leg === currency) net += sign * position.lots;
    }
    return net;
  }

  /** Net lots per currency of the open positions: a long EUR_USD is + in EUR and − in USD. */
  exposure(): Map<string, number> {
    const net = new Map<string, number>();
    for (const position of this.open.values()) {
      for (const [currency, sign] of legsOf(position)) net.set(currency, (net.get(currency) ?? 0) + sign * position.lots);
    }
    return net;
  }

  get openCount(): number {
    return this.open.size;
  }
}

/** The currencies an entry moves and which way: its base with its side, its quote against it. */
function legsOf(entry: RiskEntry): Array<[string, number]> {
  const [base = entry.instrument, quote] = entry.instrument.split('_');
  return quote === undefined
    ? [[base, entry.side]]
    : [
        [base, entry.side],
        [quote, -entry.side],
      ];
}
