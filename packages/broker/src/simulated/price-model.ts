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
 */
import { deriveKey, hashIndex, hashLowWord, highWordKey, rehash, signedUnit, unit } from './hash.js';
import { isWeeklyOpen, utcHour } from './market-hours.js';
import { CURRENCIES, USD_FACTOR_VOLATILITY, type SymbolSpec, currencyModel } from './symbols.js';

const YEAR_MS = 365.25 * 86_400_000;
export const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Bucket lengths of the currencies' octaves: whole minutes, aligned on the epoch. */
const SLOW_BUCKETS_MS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 4 * HOUR, DAY, 4 * DAY, 14 * DAY, 56 * DAY, 224 * DAY];
/** Bucket lengths of each pair's own fast octaves; both divide a minute. */
const FAST_BUCKETS_MS = [5_000, 15_000] as const;
/** Calibrates octave amplitudes so daily moves match the configured volatility. */
const AMPLITUDE_SCALE = 0.95;
/** Minutes of the UTC day around the 22:00 rollover, when spreads widen. */
const ROLLOVER_FROM_MINUTE = 21 * 60 + 55;
const ROLLOVER_TO_MINUTE = 22 * 60 + 15;
/** The per-slot jitter has the size of a ~2 s move. */
const JITTER_HORIZON_MS = 2_000;

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
  private readonly cubic = new Float64Array(4);

  constructor(key: number, annualVolatility: number) {
    this.keys = SLOW_BUCKETS_MS.map((_, octave) => deriveKey(key, octave));
    this.amplitudes = SLOW_BUCKETS_MS.map((bucketMs) => octaveAmplitude(annualVolatility, bucketMs));
  }

  /**
   * Coefficients c0..c3 of the process over minute `minute`, as a polynomial in
   * x = (t − minuteStart) / 1 min, x in [0, 1).
   */
  minuteCubic(minute: number): Float64Array {
    if (minute === this.cubicMinute) return this.cubic;
    const start = minute * MINUTE;
    let c0 = 0;
    let c1 = 0;
    let c2 = 0;
    let c3 = 0;
    for (let o = 0; o < SLOW_BUCKETS_MS.length; o++) {
      const length = SLOW_BUCKETS_MS[o]!;
      const bucket = Math.floor(start / length);
      if (bucket !== this.bucketIndex[o]) this.loadBucket(o, bucket);
      const v = this.left[o]!;
      const d = this.right[o]! - v;
      // smoothstep s(f) = 3f² − 2f³ with f = a + b·x
      const a = (start - bucket * length) / length;
      const b = MINUTE / length;
      c0 += v + d * a * a * (3 - 2 * a);
      c1 += d * 6 * a * b * (1 - a);
      c2 += d * 3 * b * b * (1 - 2 * a);
      c3 -= d * 2 * b * b * b;
    }
    this.cubic[0] = c0;
    this.cubic[1] = c1;
    this.cubic[2] = c2;
    this.cubic[3] = c3;
    this.cubicMinute = minute;
    return this.cubic;
  }

  private loadBucket(octave: number, bucket: number): void {
    const key = this.keys[octave]!;
    const amplitude = this.amplitudes[octave]!;
    // Moving one bucket forward, the old right edge is the new left edge.
    this.left[octave] =
      bucket === this.bucketIndex[octave]! + 1 ? this.right[octave]! : amplitude * signedUnit(hashIndex(key, bucket));
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

const ASIA_CURRENCIES = new Set(['JPY', 'AUD', 'NZD']);
const TWO_POW_32 = 4294967296;

/**
 * Everything about one symbol's minute that ticks need: the slow cubic, the fast octaves'
 * bucket values, the minute's spread and tick probability, and its slot range.
 */
export interface MinuteFrame {
  minute: number;
  isOpen: boolean;
  /** First slot of the minute and the first slot after it. */
  firstSlot: number;
  endSlot: number;
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
  private readonly slotKey: number;
  private readonly minuteKey: number;
  private readonly asiaActive: boolean;

  // The current minute, recomputed in place when another minute is asked for.
  private readonly frame: MinuteFrame = { minute: Number.NaN, isOpen: false, firstSlot: 0, endSlot: 0 };
  private readonly c = new Float64Array(4);
  private readonly fast5 = new Float64Array(MINUTE / FAST_BUCKETS_MS[0] + 1);
  private readonly fast15 = new Float64Array(MINUTE / FAST_BUCKETS_MS[1] + 1);
  /** Mid price, in points, of the slow octaves at the start of the loaded minute. */
  private anchorPoints = 0;
  private spreadPoints = 0;
  /** The slot hash with the high word of this minute's slots already mixed in. */
  private slotHighBase = 0;
  private slotHighKey = 0;
  private tickThreshold = 0;

  /** Outputs of the last `evaluateSlot` that ticked. */
  bidPoints = 0;
  spread = 0;

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
    this.slotKey = deriveKey(symbolKey, 'slot');
    this.minuteKey = deriveKey(symbolKey, 'minute');
    this.asiaActive = ASIA_CURRENCIES.has(spec.base) || ASIA_CURRENCIES.has(spec.quote);
  }

  /** Loads minute `minute` (epoch minutes) and returns its frame. */
  minuteFrame(minute: number): MinuteFrame {
    const frame = this.frame;
    if (frame.minute === minute) return frame;
    const start = minute * MINUTE;
    frame.minute = minute;
    frame.isOpen = !this.marketHours || isWeeklyOpen(start);
    frame.firstSlot = Math.ceil(start / this.tickIntervalMs);
    frame.endSlot = Math.ceil((start + MINUTE) / this.tickIntervalMs);
    const high = Math.floor(frame.firstSlot / TWO_POW_32);
    this.slotHighBase = high * TWO_POW_32;
    this.slotHighKey = highWordKey(this.slotKey, high);
    this.loadPrice(minute);
    this.loadActivity(minute, start);
    return frame;
  }

  /**
   * Whether the symbol ticks in `slot` (which must lie in the loaded minute); when it does,
   * `bidPoints` and `spread` hold the tick, in points.
   */
  evaluateSlot(slot: number): boolean {
    const low = slot - this.slotHighBase;
    const h = low < TWO_POW_32 ? hashLowWord(this.slotHighKey, low) : hashIndex(this.slotKey, slot);
    if (h >= this.tickThreshold) return false;
    const jitterHash = rehash(h);
    const delta = this.logOffsetAt(slot * this.tickIntervalMs) + this.jitterAmplitude * signedUnit(jitterHash);
    const spread = this.spreadPoints + ((jitterHash & 7) === 0 ? 1 : 0);
    this.bidPoints = Math.round(this.anchorPoints * expSmall(delta) - spread / 2);
    this.spread = spread;
    return true;
  }

  /** The mid price at any instant, without the per-slot jitter: the smooth path ticks scatter around. */
  smoothMid(epochMs: number): number {
    this.minuteFrame(Math.floor(epochMs / MINUTE));
    return this.anchorPoints * expSmall(this.logOffsetAt(epochMs)) * this.spec.point;
  }

  /** log(mid) at `t` minus log(mid) at the start of the loaded minute, without jitter. */
  private logOffsetAt(t: number): number {
    const offset = t - this.frame.minute * MINUTE;
    const x = offset / MINUTE;
    const c = this.c;
    return (
      x * (c[1]! + x * (c[2]! + x * c[3]!)) +
      smoothInterpolate(this.fast5, offset / FAST_BUCKETS_MS[0]) +
      smoothInterpolate(this.fast15, offset / FAST_BUCKETS_MS[1])
    );
  }

  private loadPrice(minute: number): void {
    const c = this.c;
    c[0] = this.logBasePoints;
    c[1] = 0;
    c[2] = 0;
    c[3] = 0;
    for (const { process, weight } of this.parts) {
      const pc = process.minuteCubic(minute);
      c[0] += weight * pc[0]!;
      c[1] += weight * pc[1]!;
      c[2] += weight * pc[2]!;
      c[3] += weight * pc[3]!;
    }
    this.anchorPoints = Math.exp(c[0]);
    this.loadFast(this.fast5, 0, minute);
    this.loadFast(this.fast15, 1, minute);
  }

  private loadFast(values: Float64Array, octave: 0 | 1, minute: number): void {
    const first = (minute * MINUTE) / FAST_BUCKETS_MS[octave];
    const key = this.fastKeys[octave]!;
    const amplitude = this.fastAmplitudes[octave]!;
    for (let i = 0; i < values.length; i++) values[i] = amplitude * signedUnit(hashIndex(key, first + i));
  }

  private loadActivity(minute: number, start: number): void {
    const h1 = hashIndex(this.minuteKey, minute);
    const h2 = rehash(h1);
    const h3 = rehash(h2);
    const hour = utcHour(start);
    const probability = Math.min(
      0.95,
      Math.max(0.02, this.spec.tickActivity * sessionActivity(hour, this.asiaActive) * (0.5 + unit(h1))),
    );
    this.tickThreshold = Math.floor(probability * TWO_POW_32);

    let spread = this.spec.typicalSpreadPoints * (1 + 0.25 * unit(h2));
    const minuteOfDay = Math.floor((start % DAY) / MINUTE);
    // The daily rollover (around 22:00 UTC) widens spreads, as do rare liquidity gaps.
    if (minuteOfDay >= ROLLOVER_FROM_MINUTE && minuteOfDay < ROLLOVER_TO_MINUTE) spread *= 2.5;
    else if (hour < 6 && this.spec.tier !== 'major') spread *= 1.3;
    if (unit(h3) < 0.01) spread *= 1.5 + unit(rehash(h3)) * 1.5;
    this.spreadPoints = Math.max(1, Math.round(spread));
  }
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
