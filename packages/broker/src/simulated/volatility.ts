/**
 * How much the simulated market moves, and when: a multiplicative cascade of variance shares.
 * Each week (Friday close to Friday close) gets a total variance from a slow, hashed regime;
 * its hours share it by the session (Asia quiet, London busy, the London–New York overlap
 * busiest), a faster hashed regime and rare news hours; each hour's minutes share the hour's by
 * a hash, a few minutes taking several times their part. The 48 closed hours of the weekend get
 * nothing, but for their last minute, which takes a small part of its own: the weekend's news,
 * seen as a gap at the Sunday open.
 * Every share is a pure function of (seed, index), so any week, hour or minute is computed alone.
 */
import { deriveKey, hashIndex, signedUnit, unit } from './hash.js';
import { DAY_MS, HOUR_MS, WEEK_MS, isWeeklyOpen } from './market-hours.js';

/** 1970-01-02T22:00Z, a Friday close: weeks of the price walk start there. */
const WEEK_ORIGIN_MS = 2 * DAY_MS - 2 * HOUR_MS;
export const HOURS_PER_WEEK = WEEK_MS / HOUR_MS;
export const MINUTES_PER_HOUR = 60;
/** The week's last closed hour (Sunday 21:00, 47 hours after the Friday close): its last minute holds the gap. */
export const GAP_WEEK_HOUR = 47;
/** The part of a week's variance in the Sunday open's gap: 0.4 of an average open hour's. */
const GAP_SHARE = 0.4 / 120;

/** The week (see WEEK_ORIGIN_MS) holding epoch hour `hour`, and the hour's place in it. */
export function weekOfHour(hour: number): { week: number; weekHour: number } {
  const fromOrigin = hour - WEEK_ORIGIN_MS / HOUR_MS;
  const week = Math.floor(fromOrigin / HOURS_PER_WEEK);
  return { week, weekHour: fromOrigin - week * HOURS_PER_WEEK };
}

/** Epoch hour of week-hour 0 of `week`. */
export function firstHourOfWeek(week: number): number {
  return WEEK_ORIGIN_MS / HOUR_MS + week * HOURS_PER_WEEK;
}

/** Octaves of the slow regime: (weeks per bucket, amplitude of log variance). */
const WEEK_REGIME_OCTAVES = [
  [4, 0.45],
  [16, 0.45],
] as const;
/** Octaves of the fast regime: (hours per bucket, amplitude of log variance). */
const HOUR_REGIME_OCTAVES = [
  [6, 0.5],
  [24, 0.5],
  [96, 0.5],
] as const;
/** E[exp(a·U)] for the weekly octaves' U, so the weekly factor averages 1 (measured over 5 × 10⁵ weeks). */
const WEEK_REGIME_MEAN = 1.05;
const NEWS_HOUR_PROBABILITY = 0.04;
const NEWS_HOUR_VARIANCE = 4;
const BURST_MINUTE_PROBABILITY = 0.03;
const BURST_MINUTE_VARIANCE = 6;

/** Volatility (not variance) of the session by UTC hour, relative; Asian currencies trade in Asia too. */
function sessionVolatility(hourOfDay: number, isAsian: boolean): number {
  if (hourOfDay < 6) return isAsian ? 0.85 : 0.55;
  if (hourOfDay < 7) return 0.75;
  if (hourOfDay < 12) return 1.15;
  if (hourOfDay < 16) return 1.45;
  if (hourOfDay < 20) return 0.9;
  if (hourOfDay < 22) return 0.55;
  return isAsian ? 0.6 : 0.45;
}

/** Smoothstep value noise in [-1, 1] at fractional bucket position `u`. */
function valueNoise(key: number, u: number): number {
  const j = Math.floor(u);
  const f = u - j;
  const left = signedUnit(hashIndex(key, j));
  return left + (signedUnit(hashIndex(key, j + 1)) - left) * f * f * (3 - 2 * f);
}

/** The market-wide variance shares of one seed, caching the week and the hour last asked for. */
export class VolatilityClock {
  private readonly weekKeys: number[];
  private readonly hourKeys: number[];
  private readonly newsKey: number;
  private readonly minuteKey: number;
  private sharesWeek = Number.NaN;
  private readonly baseShares = new Float64Array(HOURS_PER_WEEK);
  private readonly asianShares = new Float64Array(HOURS_PER_WEEK);
  private sharesHour = Number.NaN;
  private readonly minuteShareValues = new Float64Array(MINUTES_PER_HOUR);

  constructor(seedKey: number) {
    const key = deriveKey(seedKey, 'volatility');
    this.weekKeys = WEEK_REGIME_OCTAVES.map((_, octave) => deriveKey(key, 'week', octave));
    this.hourKeys = HOUR_REGIME_OCTAVES.map((_, octave) => deriveKey(key, 'hour', octave));
    this.newsKey = deriveKey(key, 'news');
    this.minuteKey = deriveKey(key, 'minute');
  }

  /** The week's total variance relative to an average week (the slow regime). */
  weekFactor(week: number): number {
    let logVariance = 0;
    for (let o = 0; o < WEEK_REGIME_OCTAVES.length; o++) {
      const [weeks, amplitude] = WEEK_REGIME_OCTAVES[o]!;
      logVariance += amplitude * valueNoise(this.weekKeys[o]!, week / weeks);
    }
    return Math.exp(logVariance) / WEEK_REGIME_MEAN;
  }

  /** Each hour's share of `week`'s variance, by week-hour; they sum to 1. */
  hourShares(week: number, isAsian: boolean): Float64Array {
    if (week !== this.sharesWeek) this.loadHourShares(week);
    return isAsian ? this.asianShares : this.baseShares;
  }

  /** Each minute's share of epoch hour `hour`'s variance; they sum to 1. */
  minuteShares(hour: number): Float64Array {
    if (hour === this.sharesHour) return this.minuteShareValues;
    const shares = this.minuteShareValues;
    let total = 0;
    for (let m = 0; m < MINUTES_PER_HOUR; m++) {
      const h = hashIndex(this.minuteKey, hour * MINUTES_PER_HOUR + m);
      const burst = unit(hashIndex(h, 1)) < BURST_MINUTE_PROBABILITY ? BURST_MINUTE_VARIANCE : 1;
      shares[m] = (0.4 + unit(h)) * burst;
      total += shares[m]!;
    }
    for (let m = 0; m < MINUTES_PER_HOUR; m++) shares[m] = shares[m]! / total;
    this.sharesHour = hour;
    return shares;
  }

  private loadHourShares(week: number): void {
    const firstHour = firstHourOfWeek(week);
    let baseTotal = 0;
    let asianTotal = 0;
    for (let k = 0; k < HOURS_PER_WEEK; k++) {
      const hour = firstHour + k;
      if (!isWeeklyOpen(hour * HOUR_MS) || k === GAP_WEEK_HOUR) {
        this.baseShares[k] = 0;
        this.asianShares[k] = 0;
        continue;
      }
      let logVariance = 0;
      for (let o = 0; o < HOUR_REGIME_OCTAVES.length; o++) {
        const [hours, amplitude] = HOUR_REGIME_OCTAVES[o]!;
        logVariance += amplitude * valueNoise(this.hourKeys[o]!, hour / hours);
      }
      const news = unit(hashIndex(this.newsKey, hour)) < NEWS_HOUR_PROBABILITY ? NEWS_HOUR_VARIANCE : 1;
      const weight = Math.exp(logVariance) * news;
      const hourOfDay = ((hour % 24) + 24) % 24;
      this.baseShares[k] = weight * sessionVolatility(hourOfDay, false) ** 2;
      this.asianShares[k] = weight * sessionVolatility(hourOfDay, true) ** 2;
      baseTotal += this.baseShares[k]!;
      asianTotal += this.asianShares[k]!;
    }
    for (let k = 0; k < HOURS_PER_WEEK; k++) {
      const gap = k === GAP_WEEK_HOUR ? GAP_SHARE : 0;
      this.baseShares[k] = (this.baseShares[k]! / baseTotal) * (1 - GAP_SHARE) + gap;
      this.asianShares[k] = (this.asianShares[k]! / asianTotal) * (1 - GAP_SHARE) + gap;
    }
    this.sharesWeek = week;
  }
}
