/**
 * The price model of the simulated market: a symbol's mid price is a pure function of
 * (seed, symbol, time).
 *
 * log(mid) = log(basePrice)
 *          + Σ weight × (slow value-noise octaves of the currencies involved)   buckets 1 min … 32 weeks
 *          + fast value-noise octaves of the pair                               buckets 5 s and 15 s
 *          + per-slot jitter
 *
 * Each octave holds a random value per time bucket (a hash of seed, owner, octave and bucket
 * index) and interpolates between neighbouring buckets with smoothstep. Amplitudes grow with the
 * square root of the bucket length, as a random walk's range would, and the sum is bounded, so
 * the price wanders like a market but never drifts to zero or infinity.
 *
 * Slow octaves belong to currencies (a common US-dollar factor plus each currency's own noise),
 * which keeps crosses consistent with their USD legs. Every slow bucket spans whole minutes, so
 * inside one minute their sum is a single cubic polynomial: it is computed once per minute,
 * reusing each octave's bucket values while the bucket lasts, and each tick evaluates one cubic.
 * The same holds per hour for the octaves of an hour and longer, which gives cheap, rigorous
 * bounds on the price over an hour or a minute (see bar-scan.ts).
 *
 * Tick activity is decided per minute: the minute's tick probability p (the symbol's liquidity,
 * the session, a hash) gives its tick count, drawn from the hash like a binomial(slots, p) count
 * would fall; which slots tick, a hash-driven shuffle of the minute's slots picks. A bar's tick
 * volume is then known without visiting its slots. Every tick of a minute has the minute's spread.
 */
import { deriveKey, hashIndex, rehash, signedUnit, unit } from './hash.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, isWeeklyOpen, utcHour } from './market-hours.js';
import { CURRENCIES, USD_FACTOR_VOLATILITY, type SymbolSpec, currencyModel } from './symbols.js';

const YEAR_MS = 365.25 * DAY_MS;
/** Bucket lengths of the currencies' octaves: whole minutes, aligned on the epoch. */
const SLOW_BUCKETS_MS = [MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, HOUR_MS, 4 * HOUR_MS, DAY_MS, 4 * DAY_MS, 14 * DAY_MS, 56 * DAY_MS, 224 * DAY_MS];
/**
 * Periods over which bounds on the price are taken (bar-scan.ts): inside one, the octaves whose
 * buckets are at least as long sum to one cubic, and the shorter ones are bounded by their amplitudes.
 */
export const BOUND_SPANS_MS = [HOUR_MS, 15 * MINUTE_MS] as const;
/** Bucket lengths of each pair's own fast octaves; both divide a minute. */
const FAST_BUCKETS_MS = [5_000, 15_000] as const;
/** Calibrates octave amplitudes so daily moves match the configured volatility. */
const AMPLITUDE_SCALE = 0.95;
/** The per-slot jitter has the size of a ~2 s move. */
const JITTER_HORIZON_MS = 2_000;
/** Minutes of the UTC day around the 22:00 rollover, when spreads widen. */
const ROLLOVER_FROM_MINUTE = 21 * 60 + 55;
const ROLLOVER_TO_MINUTE = 22 * 60 + 15;
const ROLLOVER_WIDENING = 2.5;
/** Largest widening of a minute's spread: its own variation, the rollover, a liquidity gap. */
const MAX_SPREAD_FACTOR = 1.25 * ROLLOVER_WIDENING * 3;
const ASIA_CURRENCIES = new Set(['JPY', 'AUD', 'NZD']);

function octaveAmplitude(annualVolatility: number, bucketMs: number): number {
  return annualVolatility * Math.sqrt(bucketMs / YEAR_MS) * AMPLITUDE_SCALE;
}

/** A sum of slow value-noise octaves (one currency's own noise, or the US-dollar factor). */
class NoiseProcess {
  private readonly keys: number[];
  private readonly amplitudes: number[];
  private readonly bucketIndex = SLOW_BUCKETS_MS.map(() => Number.NaN);
  private readonly left = new Float64Array(SLOW_BUCKETS_MS.length);
  private readonly right = new Float64Array(SLOW_BUCKETS_MS.length);
  private cubicMinute = Number.NaN;
  private readonly minuteCoefficients = new Float64Array(4);

  constructor(key: number, annualVolatility: number) {
    this.keys = SLOW_BUCKETS_MS.map((_, octave) => deriveKey(key, octave));
    this.amplitudes = SLOW_BUCKETS_MS.map((bucketMs) => octaveAmplitude(annualVolatility, bucketMs));
  }

  /** The process over minute `minute` as c0..c3 of a cubic in x = (t − minute start) / 1 min, x in [0, 1). */
  minuteCubic(minute: number): Float64Array {
    if (minute !== this.cubicMinute) {
      this.spanCubic(minute * MINUTE_MS, MINUTE_MS, 0, this.minuteCoefficients);
      this.cubicMinute = minute;
    }
    return this.minuteCoefficients;
  }

  /**
   * Into `out`: the octaves with buckets of at least `span` over [start, start + span), as a
   * cubic in x = (t − start) / span. Returns the most the shorter octaves can add or take away.
   */
  periodCubic(start: number, span: number, out: Float64Array): number {
    let firstOctave = 0;
    let shorter = 0;
    while (SLOW_BUCKETS_MS[firstOctave]! < span) shorter += this.amplitudes[firstOctave++]!;
    this.spanCubic(start, span, firstOctave, out);
    return shorter;
  }

  /** Sums octaves `firstOctave`… over [start, start + span), each bucket covering the whole span. */
  private spanCubic(start: number, span: number, firstOctave: number, out: Float64Array): void {
    let c0 = 0;
    let c1 = 0;
    let c2 = 0;
    let c3 = 0;
    for (let o = firstOctave; o < SLOW_BUCKETS_MS.length; o++) {
      const length = SLOW_BUCKETS_MS[o]!;
      const bucket = Math.floor(start / length);
      if (bucket !== this.bucketIndex[o]) this.loadBucket(o, bucket);
      const v = this.left[o]!;
      const d = this.right[o]! - v;
      // smoothstep s(f) = 3f² − 2f³ with f = a + b·x
      const a = (start - bucket * length) / length;
      const b = span / length;
      c0 += v + d * a * a * (3 - 2 * a);
      c1 += d * 6 * a * b * (1 - a);
      c2 += d * 3 * b * b * (1 - 2 * a);
      c3 -= d * 2 * b * b * b;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
  }

  private loadBucket(octave: number, bucket: number): void {
    const key = this.keys[octave]!;
    const amplitude = this.amplitudes[octave]!;
    // Moving one bucket forward, the old right edge is the new left edge.
    this.left[octave] = bucket === this.bucketIndex[octave]! + 1 ? this.right[octave]! : amplitude * signedUnit(hashIndex(key, bucket));
    this.right[octave] = amplitude * signedUnit(hashIndex(key, bucket + 1));
    this.bucketIndex[octave] = bucket;
  }
}

/** The processes of one seed: the US-dollar factor and one per currency. */
export class CurrencyProcesses {
  readonly usdFactor: NoiseProcess;
  private readonly own = new Map<string, NoiseProcess>();

  constructor(seedKey: number) {
    this.usdFactor = new NoiseProcess(deriveKey(seedKey, 'usd-factor'), USD_FACTOR_VOLATILITY);
    for (const c of CURRENCIES) {
      if (c.ownVolatility > 0) this.own.set(c.code, new NoiseProcess(deriveKey(seedKey, 'currency', c.code), c.ownVolatility));
    }
  }

  ownNoise(code: string): NoiseProcess | undefined {
    return this.own.get(code);
  }
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
  private readonly parts: { process: NoiseProcess; weight: number }[] = [];
  /** log(basePrice / point): the cubic then yields log(mid in points). */
  private readonly logBasePoints: number;
  private readonly fastKeys: number[];
  private readonly fastAmplitudes: number[];
  private readonly jitterAmplitude: number;
  /** The most the fast octaves and the jitter move log(mid) away from the slow cubic. */
  private readonly minuteSlack: number;
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
  /** The minutes whose slow cubic and fast octaves are loaded (lazily: counts and bounds need less). */
  private cubicMinute = Number.NaN;
  private fastMinute = Number.NaN;
  private readonly c = new Float64Array(4);
  /** Mid price, in points, of the slow octaves at the start of the price minute. */
  private anchorPoints = 0;
  private readonly fast5 = new Float64Array(MINUTE_MS / FAST_BUCKETS_MS[0] + 1);
  private readonly fast15 = new Float64Array(MINUTE_MS / FAST_BUCKETS_MS[1] + 1);
  private readonly periodC = new Float64Array(4);
  private readonly processC = new Float64Array(4);

  /** The bid, in points, of the last slot `evaluateSlot` found ticking. */
  bidPoints = 0;

  /** Spread of the loaded minute's ticks, in points. */
  get spread(): number {
    return this.frame.spread;
  }

  constructor(
    spec: SymbolSpec,
    seedKey: number,
    processes: CurrencyProcesses,
    private readonly tickIntervalMs: number,
    private readonly marketHours: boolean,
  ) {
    this.spec = spec;
    const base = currencyModel(spec.base)!;
    const quote = currencyModel(spec.quote)!;
    const factorWeight = quote.usdBeta - base.usdBeta;
    if (factorWeight !== 0) this.parts.push({ process: processes.usdFactor, weight: factorWeight });
    const baseOwn = processes.ownNoise(spec.base);
    const quoteOwn = processes.ownNoise(spec.quote);
    if (baseOwn) this.parts.push({ process: baseOwn, weight: 1 });
    if (quoteOwn) this.parts.push({ process: quoteOwn, weight: -1 });

    this.logBasePoints = Math.log(spec.basePrice) + spec.digits * Math.LN10;
    const symbolKey = deriveKey(seedKey, 'symbol', spec.symbol);
    this.fastKeys = FAST_BUCKETS_MS.map((_, octave) => deriveKey(symbolKey, 'fast', octave));
    this.fastAmplitudes = FAST_BUCKETS_MS.map((ms) => octaveAmplitude(spec.annualVolatility, ms));
    this.jitterAmplitude = octaveAmplitude(spec.annualVolatility, JITTER_HORIZON_MS);
    this.minuteSlack = this.fastAmplitudes.reduce((a, b) => a + b, 0) + this.jitterAmplitude;
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
    if (this.tickingMinute !== this.frame.minute) this.markTicking();
    this.ensurePrice();
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

  /** The mid price at any instant, without the per-slot jitter: the smooth path ticks scatter around. */
  smoothMid(epochMs: number): number {
    this.minuteFrame(Math.floor(epochMs / MINUTE_MS));
    this.ensurePrice();
    return this.anchorPoints * expSmall(this.logOffsetAt(epochMs)) * this.spec.point;
  }

  /** Bounds on the bid of any tick of the loaded minute. */
  minuteBidBounds(): BidBounds {
    if (this.cubicMinute !== this.frame.minute) this.loadCubic();
    const [low, high] = cubicRange(this.c);
    const halfSpread = this.frame.spread / 2;
    return {
      low: Math.exp(low - this.minuteSlack) - halfSpread - 1,
      high: Math.exp(high + this.minuteSlack) - halfSpread + 1,
    };
  }

  /** Bounds on the bid of any tick in [startMs, startMs + spanMs), a span of BOUND_SPANS_MS. */
  periodBidBounds(startMs: number, spanMs: number): BidBounds {
    const c = this.periodC;
    c[0] = this.logBasePoints;
    c[1] = 0;
    c[2] = 0;
    c[3] = 0;
    let slack = this.minuteSlack;
    for (const { process, weight } of this.parts) {
      slack += Math.abs(weight) * process.periodCubic(startMs, spanMs, this.processC);
      addScaled(c, this.processC, weight);
    }
    const [low, high] = cubicRange(c);
    return {
      low: Math.exp(low - slack) - this.maxSpreadPoints / 2 - 1,
      high: Math.exp(high + slack) + 1,
    };
  }

  /** The bid, in points, of a tick in `slot` of the loaded minute (its price loaded). */
  private bidAt(slot: number): number {
    const jitter = this.jitterAmplitude * signedUnit(hashIndex(this.jitterKey, slot));
    const delta = this.logOffsetAt(slot * this.tickIntervalMs) + jitter;
    return Math.round(this.anchorPoints * expSmall(delta) - this.frame.spread / 2);
  }

  /** log(mid) at `t` minus log(mid) at the start of the loaded minute, without jitter. */
  private logOffsetAt(t: number): number {
    const offset = t - this.frame.minute * MINUTE_MS;
    const x = offset / MINUTE_MS;
    const c = this.c;
    return (
      x * (c[1]! + x * (c[2]! + x * c[3]!)) +
      smoothInterpolate(this.fast5, offset / FAST_BUCKETS_MS[0]) +
      smoothInterpolate(this.fast15, offset / FAST_BUCKETS_MS[1])
    );
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
    if (this.cubicMinute !== this.frame.minute) this.loadCubic();
    if (this.fastMinute !== this.frame.minute) {
      this.loadFast(this.fast5, 0, this.frame.minute);
      this.loadFast(this.fast15, 1, this.frame.minute);
      this.fastMinute = this.frame.minute;
    }
  }

  private loadCubic(): void {
    const minute = this.frame.minute;
    const c = this.c;
    c[0] = this.logBasePoints;
    c[1] = 0;
    c[2] = 0;
    c[3] = 0;
    for (const { process, weight } of this.parts) addScaled(c, process.minuteCubic(minute), weight);
    this.anchorPoints = Math.exp(c[0]);
    this.cubicMinute = minute;
  }

  private loadFast(values: Float64Array, octave: 0 | 1, minute: number): void {
    const first = (minute * MINUTE_MS) / FAST_BUCKETS_MS[octave];
    const key = this.fastKeys[octave]!;
    const amplitude = this.fastAmplitudes[octave]!;
    for (let i = 0; i < values.length; i++) values[i] = amplitude * signedUnit(hashIndex(key, first + i));
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
 * approximation of the binomial (Box–Muller), rounded and kept within 0..trials.
 */
function binomialLike(trials: number, p: number, hash: number): number {
  const u1 = 1 - unit(hash);
  const u2 = unit(rehash(hash));
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  const mean = trials * p;
  return Math.min(trials, Math.max(0, Math.round(mean + z * Math.sqrt(mean * (1 - p)))));
}

function addScaled(target: Float64Array, source: Float64Array, weight: number): void {
  for (let i = 0; i < 4; i++) target[i] = target[i]! + weight * source[i]!;
}

function cubicAt(c: Float64Array, x: number): number {
  return c[0]! + x * (c[1]! + x * (c[2]! + x * c[3]!));
}

/** [min, max] of c0 + c1·x + c2·x² + c3·x³ over x in [0, 1]: the ends and the critical points inside. */
function cubicRange(c: Float64Array): [number, number] {
  let low = Math.min(c[0]!, cubicAt(c, 1));
  let high = Math.max(c[0]!, cubicAt(c, 1));
  // Critical points: 3c3·x² + 2c2·x + c1 = 0.
  const a = 3 * c[3]!;
  const b = 2 * c[2]!;
  const k = c[1]!;
  const discriminant = b * b - 4 * a * k;
  let x1 = Number.NaN;
  let x2 = Number.NaN;
  if (a === 0) {
    if (b !== 0) x1 = -k / b;
  } else if (discriminant >= 0) {
    const root = Math.sqrt(discriminant);
    x1 = (-b + root) / (2 * a);
    x2 = (-b - root) / (2 * a);
  }
  for (const x of [x1, x2]) {
    if (!(x > 0 && x < 1)) continue;
    const v = cubicAt(c, x);
    if (v < low) low = v;
    if (v > high) high = v;
  }
  return [low, high];
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
