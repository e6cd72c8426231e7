/**
 * One currency's log value (or the common US-dollar factor) as a random walk that any minute of
 * can be computed alone, in three levels:
 *
 * - weeks: the value at each week's start (Friday 22:00 UTC) is a mean-reverting AR(1) over
 *   weeks, X(n) = Σ_j φ^(j−1)·e(n−j) over the last REVERSION_WEEKS × 6 weeks of hashed Gaussian
 *   innovations e, each scaled by the week's variance (VolatilityClock.weekFactor). Reverting
 *   over half a year keeps the price within a plausible band forever, and is far too slow to be
 *   seen in hourly returns;
 * - hours: inside a week, a Gaussian random walk of hashed hourly increments, each with its
 *   hour's variance, bridged to the week's end value (a discrete Brownian bridge: the walk's
 *   partial sums plus the missing move, spread in proportion to the variance so far);
 * - minutes: inside an hour, the same bridge again from the hour's start value to its end.
 *
 * Bridged this way, the minute increments are those of a random walk whose variances the
 * cascade of VolatilityClock gives: no autocorrelation, volatility clustering and the session
 * pattern, and no move at all in the closed hours of the weekend. A new week costs a few hundred
 * hashes, a new hour sixty.
 */
import { deriveKey, hashIndex, normal } from './hash.js';
import { LruCache } from './lru-cache.js';
import { DAY_MS, WEEK_MS } from './market-hours.js';
import { GAP_WEEK_HOUR, HOURS_PER_WEEK, MINUTES_PER_HOUR, type VolatilityClock, firstHourOfWeek, weekOfHour } from './volatility.js';

const YEAR_MS = 365.25 * DAY_MS;
/** Weeks over which a departure from the centre decays by e. */
const REVERSION_WEEKS = 26;
const PERSISTENCE = Math.exp(-1 / REVERSION_WEEKS);
/** Innovations older than this weigh less than e^-6 and are left out. */
const MEMORY_WEEKS = REVERSION_WEEKS * 6;
/**
 * Weeks a walk keeps loaded: builds of different ranges take turns on one market (sliced pages of
 * history side by side), and each would load its week again at every turn with only one kept.
 */
const WEEKS_KEPT = 16;

/** A loaded week: the walk at each hour boundary (169) and each hour's variance (168). */
interface LoadedWeek {
  hourValues: Float64Array;
  hourVariances: Float64Array;
}

export class CurrencyWalk {
  private readonly levelKey: number;
  private readonly hourKey: number;
  private readonly minuteKey: number;
  /** Standard deviation of an average week's move. */
  private readonly weekVolatility: number;
  private readonly weeks = new LruCache<number, LoadedWeek>(WEEKS_KEPT);
  /** The week asked for last, and its values (the common case: the next hour is in it too). */
  private week = Number.NaN;
  private loaded: LoadedWeek | undefined;

  constructor(
    key: number,
    annualVolatility: number,
    private readonly isAsian: boolean,
    private readonly clock: VolatilityClock,
  ) {
    this.levelKey = deriveKey(key, 'week');
    this.hourKey = deriveKey(key, 'hour');
    this.minuteKey = deriveKey(key, 'minute');
    this.weekVolatility = annualVolatility * Math.sqrt(WEEK_MS / YEAR_MS);
  }

  /**
   * Into `values` (61): the walk at each minute boundary of epoch hour `hour`; into `variances`
   * (60): each minute's variance.
   */
  hourPath(hour: number, values: Float64Array, variances: Float64Array): void {
    const { week, weekHour } = weekOfHour(hour);
    const { hourValues, hourVariances } = this.weekOf(week);
    const start = hourValues[weekHour]!;
    const end = hourValues[weekHour + 1]!;
    const hourVariance = hourVariances[weekHour]!;
    if (hourVariance === 0) {
      values.fill(start);
      variances.fill(0);
      return;
    }
    if (weekHour === GAP_WEEK_HOUR) {
      // The weekend's gap, all in its last closed minute: the Sunday open's first tick shows it.
      variances.fill(0);
      variances[MINUTES_PER_HOUR - 1] = hourVariance;
    } else {
      const shares = this.clock.minuteShares(hour);
      for (let m = 0; m < MINUTES_PER_HOUR; m++) variances[m] = hourVariance * shares[m]!;
    }
    bridge(values, variances, MINUTES_PER_HOUR, start, end, this.minuteKey, hour * MINUTES_PER_HOUR);
  }

  private weekOf(week: number): LoadedWeek {
    if (week === this.week) return this.loaded!;
    let loaded = this.weeks.get(week);
    if (!loaded) {
      loaded = this.loadWeek(week);
      this.weeks.set(week, loaded);
    }
    this.week = week;
    this.loaded = loaded;
    return loaded;
  }

  private loadWeek(week: number): LoadedWeek {
    // The week before's end, when it is loaded, is this one's start (the same sum, computed once).
    const start = this.weeks.get(week - 1)?.hourValues[HOURS_PER_WEEK] ?? this.level(week);
    const end = this.level(week + 1);
    const weekVariance = this.weekVolatility ** 2 * this.clock.weekFactor(week);
    const shares = this.clock.hourShares(week, this.isAsian);
    const hourValues = new Float64Array(HOURS_PER_WEEK + 1);
    const hourVariances = new Float64Array(HOURS_PER_WEEK);
    for (let k = 0; k < HOURS_PER_WEEK; k++) hourVariances[k] = weekVariance * shares[k]!;
    bridge(hourValues, hourVariances, HOURS_PER_WEEK, start, end, this.hourKey, firstHourOfWeek(week));
    return { hourValues, hourVariances };
  }

  /** The walk at the start of `week`: the AR(1) sum of the innovations before it. */
  private level(week: number): number {
    let value = 0;
    let weight = 1;
    for (let j = 1; j <= MEMORY_WEEKS; j++) {
      const past = week - j;
      value += weight * this.weekVolatility * Math.sqrt(this.clock.weekFactor(past)) * normal(hashIndex(this.levelKey, past));
      weight *= PERSISTENCE;
    }
    return value;
  }
}

/**
 * Into `values` (steps + 1): a Gaussian random walk from `start` to `end` in `steps` steps of the
 * given variances, the increments hashed from `key` at `firstIndex`…: the walk's partial sums
 * plus the rest of the move, added in proportion to the variance so far.
 */
function bridge(values: Float64Array, variances: Float64Array, steps: number, start: number, end: number, key: number, firstIndex: number): void {
  let walked = 0;
  let totalVariance = 0;
  values[0] = 0;
  for (let i = 0; i < steps; i++) {
    const variance = variances[i]!;
    if (variance > 0) walked += Math.sqrt(variance) * normal(hashIndex(key, firstIndex + i));
    totalVariance += variance;
    values[i + 1] = walked;
  }
  const rest = end - start - walked;
  let varianceSoFar = 0;
  values[0] = start;
  for (let i = 1; i < steps; i++) {
    varianceSoFar += variances[i - 1]!;
    values[i] = start + values[i]! + (totalVariance > 0 ? (varianceSoFar / totalVariance) * rest : 0);
  }
  values[steps] = end;
}
