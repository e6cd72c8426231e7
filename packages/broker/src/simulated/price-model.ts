/**
 * The price model of the simulated market: a symbol's mid price is a pure function of
 * (seed, symbol, time).
 *
 * log(mid) = log(basePrice)
 *          + Σ weight × (the random walks of the currencies involved)   a value per minute boundary
 *          + inside each minute: the straight line between its two boundary values,
 *            a wiggle that vanishes at both ends, and a per-slot jitter
 *
 * The walks (currency-walk.ts) belong to currencies: a common US-dollar factor plus each
 * currency's own, which keeps crosses consistent with their USD legs. Each is a random walk of
 * hashed Gaussian minute increments whose variances follow the market-wide cascade of
 * volatility.ts (a slow and a fast regime, the sessions, news hours and minutes, nothing while
 * the market is closed); it is built top down, weeks from a slowly mean-reverting AR(1), hours
 * and then minutes bridged between them, so any minute is computed without replaying from the
 * epoch. Returns are then uncorrelated, volatile periods cluster, tails are fat, London moves
 * more than Asia and a weekend leaves only a small gap. The walk rests over the weekend even when
 * market hours are off: the same seed gives the same weekday prices either way.
 *
 * The symbol computes each hour's 61 minute-boundary values (the weighted sum of its walks) and
 * minute volatilities once, keeping the last few hours. Inside a minute the wiggle (two value-noise
 * octaves of 5 s and 15 s pinned to 0 at the minute's ends) and the jitter scale with the
 * minute's volatility, so every tick of a minute lies within a known slack of the line between
 * its ends: rigorous bounds on the price over a minute, a quarter hour or an hour (see bar-scan.ts).
 *
 * Tick activity is decided per minute: the minute's tick probability p (the symbol's liquidity,
 * the session, a hash) gives its tick count, drawn from the hash like a binomial(slots, p) count
 * would fall; which slots tick, a hash-driven shuffle of the minute's slots picks. A bar's tick
 * volume is then known without visiting its slots. Every tick of a minute has the minute's spread.
 */
import { CurrencyWalk } from './currency-walk.js';
import { deriveKey, hashIndex, normal, rehash, signedUnit, unit } from './hash.js';
import { LruCache } from './lru-cache.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, isWeeklyOpen, utcHour } from './market-hours.js';
import { CURRENCIES, USD_FACTOR_VOLATILITY, type SymbolSpec, currencyModel } from './symbols.js';
import { MINUTES_PER_HOUR, VolatilityClock } from './volatility.js';

/**
 * Periods over which bounds on the price are taken (bar-scan.ts), each inside one hour: the
 * largest and smallest minute-boundary value of the period, widened by its largest minute slack.
 */
export const BOUND_SPANS_MS = [HOUR_MS, 15 * MINUTE_MS] as const;
/** Bucket lengths of each pair's own wiggle octaves; both divide a minute. */
const FAST_BUCKETS_MS = [5_000, 15_000] as const;
/** Amplitudes of the wiggle octaves, in units of the minute's standard deviation. */
const FAST_AMPLITUDES = [0.35, 0.5] as const;
/** The per-slot jitter has the size of a ~2 s move at the symbol's average volatility. */
const JITTER_HORIZON_MS = 2_000;
const YEAR_MS = 365.25 * DAY_MS;
/** Minutes of the UTC day around the 22:00 rollover, when spreads widen. */
const ROLLOVER_FROM_MINUTE = 21 * 60 + 55;
const ROLLOVER_TO_MINUTE = 22 * 60 + 15;
const ROLLOVER_WIDENING = 2.5;
/** Largest widening of a minute's spread: its own variation, the rollover, a liquidity gap. */
const MAX_SPREAD_FACTOR = 1.25 * ROLLOVER_WIDENING * 3;
const ASIA_CURRENCIES = new Set(['JPY', 'AUD', 'NZD']);
/** Hours of minute-boundary values a symbol keeps: a D1 bar's bounds ask for 24. */
const HOUR_PATH_CACHE_SIZE = 64;

/** The walks of one seed: the US-dollar factor and one per currency, over one volatility clock. */
export class CurrencyWalks {
  readonly usdFactor: CurrencyWalk;
  private readonly own = new Map<string, CurrencyWalk>();

  constructor(seedKey: number) {
    const clock = new VolatilityClock(seedKey);
    this.usdFactor = new CurrencyWalk(deriveKey(seedKey, 'usd-factor'), USD_FACTOR_VOLATILITY, false, clock);
    for (const c of CURRENCIES) {
      if (c.ownVolatility > 0)
        this.own.set(c.code, new CurrencyWalk(deriveKey(seedKey, 'currency', c.code), c.ownVolatility, ASIA_CURRENCIES.has(c.code), clock));
    }
  }

  ownWalk(code: string): CurrencyWalk | undefined {
    return this.own.get(code);
  }
}

/** One symbol's hour: log(mid in points) at each minute boundary and each minute's standard deviation. */
interface HourPath {
  logPoints: Float64Array;
  minuteSd: Float64Array;
}

/** Session activity by UTC hour: Asia quiet, London busy, the London–New York overlap busiest. */
function sessionActivity(hour: number, asiaActive: boolean): number {
  if (hour < 7) return asiaActive ? 0.9 : 0.55;
  if (hour < 12) return 1;
  if (hour < 16) return 1.35;
  if (hour < 21) return 0.9;
  return 0.4;
}

/** One symbol's minute: whether it trades, its slots, and its spread. */
export interface MinuteFrame {
  /** Epoch minutes. */
  minute: number;
  isOpen: boolean;
  /** First slot of the minute and the first slot after it. */
  firstSlot: number;
  endSlot: number;
  /** Spread of every tick of the minute, in points. */
  spread: number;
  /** How many of the minute's slots tick. */
  tickCount: number;
}

/** The bids, in points, of one minute's ticks (SymbolModel.scanMinute). */
export interface MinuteBids {
  first: number;
  last: number;
  low: number;
  high: number;
}

/** Bounds, in points, of the bid of any tick in a period. */
export interface BidBounds {
  low: number;
  high: number;
}

/** One symbol's price, spread and tick activity, evaluated minute by minute. */
export class SymbolModel {
  readonly spec: SymbolSpec;
  private readonly parts: { walk: CurrencyWalk; weight: number }[] = [];
  /** log(basePrice / point): with the walks, log(mid in points). */
  private readonly logBasePoints: number;
  private readonly fastKeys: number[];
  private readonly jitterAmplitude: number;
  private readonly maxSpreadPoints: number;
  private readonly activityKey: number;
  private readonly jitterKey: number;
  private readonly minuteKey: number;
  /** Market-wide: some hours are busier than others for every symbol (news, flows). */
  private readonly busyHourKey: number;
  private readonly asiaActive: boolean;

  // The loaded minute, recomputed in place when another minute is asked for.
  private readonly frame: MinuteFrame = { minute: Number.NaN, isOpen: false, firstSlot: 0, endSlot: 0, spread: 0, tickCount: 0 };
  /** The minute whose ticking slots are marked in `ticking` (marked lazily: counts do not need them). */
  private tickingMinute = Number.NaN;
  private readonly ticking: Uint8Array;
  private readonly slotOrder: Int32Array;
  private readonly hourPaths = new LruCache<number, HourPath>(HOUR_PATH_CACHE_SIZE);
  private pathHour = Number.NaN;
  private path: HourPath | undefined;
  private readonly walkValues = new Float64Array(MINUTES_PER_HOUR + 1);
  private readonly walkVariances = new Float64Array(MINUTES_PER_HOUR);
  /** The minutes whose line and wiggle are loaded (lazily: counts and bounds need less). */
  private lineMinute = Number.NaN;
  private wiggleMinute = Number.NaN;
  /** Mid price, in points, at the start of the line's minute; log(mid) moves by `step` over it. */
  private anchorPoints = 0;
  private startLog = 0;
  private step = 0;
  /** The most the wiggle and the jitter move log(mid) away from the line in the line's minute. */
  private minuteSlack = 0;
  private minuteSd = 0;
  private readonly fast5 = new Float64Array(MINUTE_MS / FAST_BUCKETS_MS[0] + 1);
  private readonly fast15 = new Float64Array(MINUTE_MS / FAST_BUCKETS_MS[1] + 1);

  /** The bid, in points, of the last slot `evaluateSlot` found ticking. */
  bidPoints = 0;

  /** Spread of the loaded minute's ticks, in points. */
  get spread(): number {
    return this.frame.spread;
  }

  constructor(
    spec: SymbolSpec,
    seedKey: number,
    walks: CurrencyWalks,
    private readonly tickIntervalMs: number,
    private readonly marketHours: boolean,
  ) {
    this.spec = spec;
    const base = currencyModel(spec.base)!;
    const quote = currencyModel(spec.quote)!;
    const factorWeight = quote.usdBeta - base.usdBeta;
    if (factorWeight !== 0) this.parts.push({ walk: walks.usdFactor, weight: factorWeight });
    const baseOwn = walks.ownWalk(spec.base);
    const quoteOwn = walks.ownWalk(spec.quote);
    if (baseOwn) this.parts.push({ walk: baseOwn, weight: 1 });
    if (quoteOwn) this.parts.push({ walk: quoteOwn, weight: -1 });

    this.logBasePoints = Math.log(spec.basePrice) + spec.digits * Math.LN10;
    const symbolKey = deriveKey(seedKey, 'symbol', spec.symbol);
    this.fastKeys = FAST_BUCKETS_MS.map((_, octave) => deriveKey(symbolKey, 'fast', octave));
    this.jitterAmplitude = spec.annualVolatility * Math.sqrt(JITTER_HORIZON_MS / YEAR_MS);
    this.maxSpreadPoints = Math.ceil(spec.typicalSpreadPoints * MAX_SPREAD_FACTOR);
    this.activityKey = deriveKey(symbolKey, 'activity');
    this.jitterKey = deriveKey(symbolKey, 'jitter');
    this.minuteKey = deriveKey(symbolKey, 'minute');
    this.busyHourKey = deriveKey(seedKey, 'busy-hour');
    this.asiaActive = ASIA_CURRENCIES.has(spec.base) || ASIA_CURRENCIES.has(spec.quote);
    const slotsPerMinute = Math.ceil(MINUTE_MS / tickIntervalMs) + 1;
    this.ticking = new Uint8Array(slotsPerMinute);
    this.slotOrder = new Int32Array(slotsPerMinute);
  }

  /** Loads minute `minute` (epoch minutes): its slots, tick probability and spread. */
  minuteFrame(minute: number): MinuteFrame {
    const frame = this.frame;
    if (frame.minute === minute) return frame;
    const start = minute * MINUTE_MS;
    frame.minute = minute;
    frame.isOpen = !this.marketHours || isWeeklyOpen(start);
    frame.firstSlot = Math.ceil(start / this.tickIntervalMs);
    frame.endSlot = Math.ceil((start + MINUTE_MS) / this.tickIntervalMs);
    this.loadActivity(minute, start);
    return frame;
  }

  /** Whether the symbol ticks in `slot`, which must lie in the loaded minute. */
  isActive(slot: number): boolean {
    if (this.tickingMinute !== this.frame.minute) this.markTicking();
    return this.ticking[slot - this.frame.firstSlot] === 1;
  }

  /**
   * Whether the symbol ticks in `slot` (which must lie in the loaded minute); when it does,
   * `bidPoints` holds the tick's bid in points (the ask is `frame.spread` points above).
   */
  evaluateSlot(slot: number): boolean {
    if (!this.isActive(slot)) return false;
    this.ensurePrice();
    this.bidPoints = this.bidAt(slot);
    return true;
  }

  /**
   * The bids, in points, of every tick of the loaded minute into `out` (first, last, lowest,
   * highest), as evaluateSlot prices them one by one; false when the minute has no tick.
   */
  scanMinute(out: MinuteBids): boolean {
    const { firstSlot, endSlot, tickCount } = this.frame;
    if (tickCount === 0) return false;
    this.ensurePrice();
    if (this.minuteSd === 0) {
      // At rest (a closed weekend's minute with market hours off): every tick has the one bid.
      out.first = out.last = out.low = out.high = this.bidAt(firstSlot);
      return true;
    }
    if (this.tickingMinute !== this.frame.minute) this.markTicking();
    const ticking = this.ticking;
    let first = Number.NaN;
    let last = 0;
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (let slot = firstSlot; slot < endSlot; slot++) {
      if (ticking[slot - firstSlot] !== 1) continue;
      const bid = this.bidAt(slot);
      if (first !== first) first = bid;
      last = bid;
      if (bid < low) low = bid;
      if (bid > high) high = bid;
    }
    out.first = first;
    out.last = last;
    out.low = low;
    out.high = high;
    return true;
  }

  /** The mid price at any instant, without the per-slot jitter: the path ticks scatter around. */
  smoothMid(epochMs: number): number {
    this.minuteFrame(Math.floor(epochMs / MINUTE_MS));
    this.ensurePrice();
    return this.anchorPoints * expSmall(this.logOffsetAt(epochMs)) * this.spec.point;
  }

  /** Bounds on the bid of any tick of the loaded minute. */
  minuteBidBounds(): BidBounds {
    if (this.lineMinute !== this.frame.minute) this.loadLine();
    const low = Math.min(0, this.step) - this.minuteSlack;
    const high = Math.max(0, this.step) + this.minuteSlack;
    const halfSpread = this.frame.spread / 2;
    return {
      low: Math.exp(this.startLog + low) - halfSpread - 1,
      high: Math.exp(this.startLog + high) - halfSpread + 1,
    };
  }

  /** Bounds on the bid of any tick in [startMs, startMs + spanMs), a span of BOUND_SPANS_MS. */
  periodBidBounds(startMs: number, spanMs: number): BidBounds {
    const hour = Math.floor(startMs / HOUR_MS);
    const { logPoints, minuteSd } = this.hourPath(hour);
    const from = (startMs - hour * HOUR_MS) / MINUTE_MS;
    const to = from + spanMs / MINUTE_MS;
    let low = logPoints[to]!;
    let high = low;
    let sd = 0;
    for (let m = from; m < to; m++) {
      const value = logPoints[m]!;
      if (value < low) low = value;
      if (value > high) high = value;
      if (minuteSd[m]! > sd) sd = minuteSd[m]!;
    }
    const slack = this.slackOf(sd);
    return {
      low: Math.exp(low - slack) - this.maxSpreadPoints / 2 - 1,
      high: Math.exp(high + slack) + 1,
    };
  }

  /** The bid, in points, of a tick in `slot` of the loaded minute (its price loaded). */
  private bidAt(slot: number): number {
    // A minute at rest does not move at all: no jitter either, so its bounds are exact and its ticks one price.
    const jitter = this.minuteSd === 0 ? 0 : this.jitterAmplitude * signedUnit(hashIndex(this.jitterKey, slot));
    const delta = this.logOffsetAt(slot * this.tickIntervalMs) + jitter;
    return Math.round(this.anchorPoints * expSmall(delta) - this.frame.spread / 2);
  }

  /** log(mid) at `t` minus log(mid) at the start of the loaded minute, without jitter. */
  private logOffsetAt(t: number): number {
    const offset = t - this.frame.minute * MINUTE_MS;
    return (
      (offset / MINUTE_MS) * this.step +
      smoothInterpolate(this.fast5, offset / FAST_BUCKETS_MS[0]) +
      smoothInterpolate(this.fast15, offset / FAST_BUCKETS_MS[1])
    );
  }

  /** The most the wiggle (each octave within its amplitude) and the jitter add to a minute of standard deviation `sd`. */
  private slackOf(sd: number): number {
    return sd === 0 ? 0 : sd * (FAST_AMPLITUDES[0] + FAST_AMPLITUDES[1]) + this.jitterAmplitude;
  }

  /** Marks the loaded minute's ticking slots: `tickCount` of them, drawn by a hash-driven shuffle. */
  private markTicking(): void {
    const { firstSlot, endSlot, tickCount, minute } = this.frame;
    const slots = endSlot - firstSlot;
    this.ticking.fill(0, 0, slots);
    const order = this.slotOrder;
    for (let i = 0; i < slots; i++) order[i] = i;
    const minuteKey = hashIndex(this.activityKey, minute);
    // The first `tickCount` steps of a Fisher–Yates shuffle pick a uniform random subset.
    for (let i = 0; i < tickCount; i++) {
      const j = i + Math.floor(unit(hashIndex(minuteKey, i)) * (slots - i));
      const picked = order[j]!;
      order[j] = order[i]!;
      order[i] = picked;
      this.ticking[picked] = 1;
    }
    this.tickingMinute = minute;
  }

  private ensurePrice(): void {
    if (this.lineMinute !== this.frame.minute) this.loadLine();
    if (this.wiggleMinute !== this.frame.minute) {
      this.loadWiggle(this.fast5, 0, this.frame.minute);
      this.loadWiggle(this.fast15, 1, this.frame.minute);
      this.wiggleMinute = this.frame.minute;
    }
  }

  /** The loaded minute's ends, standard deviation and slack, from its hour's path. */
  private loadLine(): void {
    const minute = this.frame.minute;
    const hour = Math.floor(minute / MINUTES_PER_HOUR);
    const { logPoints, minuteSd } = this.hourPath(hour);
    const m = minute - hour * MINUTES_PER_HOUR;
    this.startLog = logPoints[m]!;
    this.step = logPoints[m + 1]! - this.startLog;
    this.anchorPoints = Math.exp(this.startLog);
    this.minuteSd = minuteSd[m]!;
    this.minuteSlack = this.slackOf(this.minuteSd);
    this.lineMinute = minute;
  }

  /** The symbol's path over epoch hour `hour`: the weighted sum of its walks, kept for a while. */
  private hourPath(hour: number): HourPath {
    if (hour === this.pathHour) return this.path!;
    let path = this.hourPaths.get(hour);
    if (!path) {
      path = { logPoints: new Float64Array(MINUTES_PER_HOUR + 1).fill(this.logBasePoints), minuteSd: new Float64Array(MINUTES_PER_HOUR) };
      const { logPoints, minuteSd } = path;
      for (const { walk, weight } of this.parts) {
        walk.hourPath(hour, this.walkValues, this.walkVariances);
        for (let m = 0; m <= MINUTES_PER_HOUR; m++) logPoints[m] = logPoints[m]! + weight * this.walkValues[m]!;
        // The variances add up first; minuteSd holds the sum until the square root below.
        for (let m = 0; m < MINUTES_PER_HOUR; m++) minuteSd[m] = minuteSd[m]! + weight * weight * this.walkVariances[m]!;
      }
      for (let m = 0; m < MINUTES_PER_HOUR; m++) minuteSd[m] = Math.sqrt(minuteSd[m]!);
      this.hourPaths.set(hour, path);
    }
    this.pathHour = hour;
    this.path = path;
    return path;
  }

  /** The wiggle's octave over `minute`, its bucket values pinned to 0 at the minute's ends. */
  private loadWiggle(values: Float64Array, octave: 0 | 1, minute: number): void {
    const last = values.length - 1;
    const amplitude = FAST_AMPLITUDES[octave] * this.minuteSd;
    values[0] = 0;
    values[last] = 0;
    if (amplitude === 0) {
      values.fill(0);
      return;
    }
    const first = (minute * MINUTE_MS) / FAST_BUCKETS_MS[octave];
    const key = this.fastKeys[octave]!;
    for (let i = 1; i < last; i++) values[i] = amplitude * signedUnit(hashIndex(key, first + i));
  }

  private loadActivity(minute: number, start: number): void {
    const h1 = hashIndex(this.minuteKey, minute);
    const h2 = rehash(h1);
    const h3 = rehash(h2);
    const h4 = rehash(h3);
    const h5 = rehash(h4);
    const hour = utcHour(start);
    const busyHour = 0.6 + 0.8 * unit(hashIndex(this.busyHourKey, Math.floor(minute / 60)));
    const activity = this.spec.tickActivity * sessionActivity(hour, this.asiaActive) * busyHour * (0.5 + unit(h1));
    const probability = Math.min(0.95, Math.max(0.02, activity));
    const slots = this.frame.endSlot - this.frame.firstSlot;
    this.frame.tickCount = this.frame.isOpen ? binomialLike(slots, probability, h5) : 0;

    let spread = this.spec.typicalSpreadPoints * (1 + 0.25 * unit(h2));
    const minuteOfDay = Math.floor((start % DAY_MS) / MINUTE_MS);
    // The daily rollover (around 22:00 UTC) widens spreads, as do rare liquidity gaps.
    if (minuteOfDay >= ROLLOVER_FROM_MINUTE && minuteOfDay < ROLLOVER_TO_MINUTE) spread *= ROLLOVER_WIDENING;
    else if (hour < 6 && this.spec.tier !== 'major') spread *= 1.3;
    if (unit(h3) < 0.01) spread *= 1.5 + unit(h4) * 1.5;
    this.frame.spread = Math.max(1, Math.round(spread));
  }
}

/**
 * A count of successes in `trials` trials of probability `p`, drawn from a hash: the normal
 * approximation of the binomial, rounded and kept within 0..trials.
 */
function binomialLike(trials: number, p: number, hash: number): number {
  const mean = trials * p;
  return Math.min(trials, Math.max(0, Math.round(mean + normal(hash) * Math.sqrt(mean * (1 - p)))));
}

/**
 * e^x for the small offsets inside one minute (|x| < 0.01), by its Taylor series: as accurate as
 * Math.exp there, and much cheaper on the per-tick path.
 */
function expSmall(x: number): number {
  return 1 + x * (1 + (x / 2) * (1 + (x / 3) * (1 + (x / 4) * (1 + (x / 5) * (1 + x / 6)))));
}

/** Smoothstep interpolation of bucket values at fractional bucket position `u`. */
function smoothInterpolate(values: Float64Array, u: number): number {
  const j = Math.floor(u);
  const f = u - j;
  const left = values[j]!;
  return left + (values[j + 1]! - left) * f * f * (3 - 2 * f);
}
