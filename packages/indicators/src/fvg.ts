import { assertCandle, assertInteger, assertNumber, type Candle, type StreamingIndicator } from './types.js';

export type FvgType = 'bullish' | 'bearish';

/** When an open gap counts as mitigated (filled). */
export type FvgMitigation = 'wick' | 'close';

export interface FvgOptions {
  /** Smallest gap (zone height, in price units) that is recorded (default 0: every gap). */
  minSize?: number;
  /** Open zones kept at most; past that the oldest open zone is dropped (default 50). */
  maxOpenZones?: number;
  /**
   * `wick` (default): a bullish zone is mitigated by a later candle whose low reaches the zone's
   * low (price traded down through the whole gap); a bearish zone by a later candle whose high
   * reaches the zone's high. `close`: the same with the close instead of the low / high.
   */
  mitigation?: FvgMitigation;
  /**
   * Candles a gap stays open at most, counting the one that confirmed it (default Infinity: no
   * limit). A gap confirmed by candle c is open after candles c … c + maxAge − 1 unless mitigated
   * or dropped before; candle c + maxAge closes it before its mitigation check, so that candle
   * neither mitigates it nor counts it. With a limit the value after a candle is a function of
   * the last maxAge + 2 candles (a gap needs the two before the one confirming it), except `id`.
   */
  maxAge?: number;
}

/** One fair value gap. */
export interface FairValueGap {
  /** 1, 2, 3, … in order of confirmation. */
  id: number;
  type: FvgType;
  /** [low, high] of the gap: bullish [candle1.high, candle3.low], bearish [candle3.high, candle1.low]. */
  zone: readonly [number, number];
  /** zone[1] − zone[0]. */
  size: number;
  /** Open time of the middle (displacement) candle. */
  time: number;
  /** Open time of the third candle, at whose close the gap was confirmed. */
  confirmedAt: number;
}

export interface FvgValue {
  /** Type of the latest open (unmitigated) gap, or `none` when no gap is open. */
  type: FvgType | 'none';
  /** Zone [low, high] of the latest open gap, or null. */
  zone: readonly [number, number] | null;
  /** The latest open gap, or null. */
  gap: FairValueGap | null;
  /** The gap this candle confirmed, if any (it is then also `gap`). */
  created: FairValueGap | null;
  /** How many open gaps this candle mitigated. */
  mitigated: number;
  /** Open gaps after this candle. */
  openCount: number;
}

/**
 * Fair value gaps (the three-candle imbalance of ICT / "smart money" price action):
 *
 * - with candles c1, c2, c3 consecutive and c3 just closed: bullish gap when c3.low > c1.high,
 *   zone [c1.high, c3.low]; bearish gap when c3.high < c1.low, zone [c3.high, c1.low]. It is
 *   confirmed at c3's close: nothing is looked up ahead, and it is never revised afterwards;
 * - a gap smaller than `minSize` is ignored;
 * - each confirmed gap stays open until mitigated (see {@link FvgOptions.mitigation}) by a
 *   LATER candle; a candle first mitigates the zones open before it, then may confirm a new one;
 * - at most `maxOpenZones` stay open: confirming one more drops the oldest open zone;
 * - with `maxAge`, a gap is no longer open once maxAge candles, counting the one that confirmed it,
 *   have closed (see {@link FvgOptions.maxAge}). A zone's fate then depends only on the candles
 *   since its first and on newer zones (the cap drops older zones first), so the value forgets
 *   where the feed began, `id` aside (it counts gaps from the start).
 *
 * The value reports the latest (most recently confirmed) gap still open; `openZones` lists them all.
 * Warm-up: 3 candles. Work per candle: O(1) amortized (open zones are kept sorted by the edge that
 * mitigates them, so a candle pops exactly the zones it mitigates); a scan of the open zones (at
 * most maxOpenZones) only when the latest open gap is mitigated or the cap drops the oldest. Gaps
 * also wait in a queue in order of confirmation, left there when mitigated or dropped (lazy
 * deletion): each leaves it once, and one still open is then found by binary search on its edge.
 */
export class FairValueGaps implements StreamingIndicator<FvgValue> {
  readonly minSize: number;
  readonly maxOpenZones: number;
  readonly mitigation: FvgMitigation;
  readonly maxAge: number;
  readonly warmUp = 3;
  // Open zones by type, each sorted by the edge that mitigates it, so mitigation only ever pops
  // from the end: bullish by zone low ascending (a low at or below the last one's mitigates it,
  // and maybe the ones before), bearish by zone high descending.
  private bull: FairValueGap[] = [];
  private bear: FairValueGap[] = [];
  private latest: FairValueGap | null = null;
  // Every gap confirmed in the last maxAge candles (and some closed ones), oldest first from
  // `head`, with the index of the candle that confirmed it; empty without a maxAge.
  private queue: FairValueGap[] = [];
  private queueAt: number[] = [];
  private head = 0;
  private seen = 0;
  private nextId = 1;
  private h1 = Number.NaN; // high of the candle two back
  private l1 = Number.NaN; // low of the candle two back
  private h2 = Number.NaN; // high of the previous candle
  private l2 = Number.NaN; // low of the previous candle
  private t2 = Number.NaN; // time of the previous candle
  /** The value after the last candle, overwritten in place by the next one; null before the first. */
  private cur: FvgValue | null = null;
  /** The fresh copy of cur that `value` answers, made once per candle when asked. */
  private copy: FvgValue | null = null;

  constructor(options: FvgOptions = {}) {
    this.minSize = options.minSize ?? 0;
    this.maxOpenZones = options.maxOpenZones ?? 50;
    this.mitigation = options.mitigation ?? 'wick';
    this.maxAge = options.maxAge ?? Number.POSITIVE_INFINITY;
    assertNumber('minSize', this.minSize, 0);
    assertInteger('maxOpenZones', this.maxOpenZones, 1);
    if (this.maxAge !== Number.POSITIVE_INFINITY) assertInteger('maxAge', this.maxAge, 1);
    if (this.mitigation !== 'wick' && this.mitigation !== 'close') {
      throw new RangeError(`mitigation must be 'wick' or 'close', got ${String(this.mitigation)}`);
    }
  }

  update(candle: Candle): FvgValue | null {
    this.advance(candle);
    return this.value;
  }

  /** Feeds the candle as {@link update} does, building no value object; whether there is a value (read `current`). */
  advance(candle: Candle): boolean {
    assertCandle(candle);
    this.copy = null;
    const { high, low } = candle;

    // 0. Expiry of the gaps confirmed maxAge candles ago (this.seen is this candle's index).
    if (this.head < this.queue.length) this.expire(this.seen - this.maxAge);

    // 1. Mitigation of the zones open before this candle.
    let mitigated = 0;
    const down = this.mitigation === 'wick' ? low : candle.close;
    const up = this.mitigation === 'wick' ? high : candle.close;
    const bull = this.bull;
    const bear = this.bear;
    let latestGone = false;
    while (bull.length > 0 && down <= bull[bull.length - 1]!.zone[0]) {
      if (bull.pop() === this.latest) latestGone = true;
      mitigated++;
    }
    while (bear.length > 0 && up >= bear[bear.length - 1]!.zone[1]) {
      if (bear.pop() === this.latest) latestGone = true;
      mitigated++;
    }
    if (latestGone) this.latest = this.newestOpen();

    // 2. A new gap confirmed by this candle's close.
    let created: FairValueGap | null = null;
    if (this.seen >= 2) {
      if (low > this.h1 && low - this.h1 >= this.minSize) {
        created = this.open('bullish', this.h1, low, candle.time);
      } else if (high < this.l1 && this.l1 - high >= this.minSize) {
        created = this.open('bearish', high, this.l1, candle.time);
      }
    }

    this.h1 = this.h2;
    this.l1 = this.l2;
    this.h2 = high;
    this.l2 = low;
    this.t2 = candle.time;
    this.seen++;
    if (this.seen < 3) return false;

    const gap = this.latest;
    const v = this.cur;
    if (v === null) {
      this.cur = {
        type: gap === null ? 'none' : gap.type,
        zone: gap === null ? null : gap.zone,
        gap,
        created,
        mitigated,
        openCount: bull.length + bear.length,
      };
    } else {
      v.type = gap === null ? 'none' : gap.type;
      v.zone = gap === null ? null : gap.zone;
      v.gap = gap;
      v.created = created;
      v.mitigated = mitigated;
      v.openCount = bull.length + bear.length;
    }
    return true;
  }

  /**
   * The value after the last candle as one object this indicator overwrites at the next candle
   * (so that a caller reading it each candle allocates nothing); null before the first value.
   * Read it before the next candle; `value` is a copy that stays.
   */
  get current(): Readonly<FvgValue> | null {
    return this.cur;
  }

  private open(type: FvgType, zoneLow: number, zoneHigh: number, confirmedAt: number): FairValueGap {
    const gap: FairValueGap = {
      id: this.nextId++,
      type,
      zone: [zoneLow, zoneHigh],
      size: zoneHigh - zoneLow,
      time: this.t2,
      confirmedAt,
    };
    if (this.bull.length + this.bear.length >= this.maxOpenZones) this.dropOldest();
    if (type === 'bullish') {
      // Sorted by zone low ascending; a new gap usually sits nearest price, i.e. at the end.
      const bull = this.bull;
      let i = bull.length;
      bull.push(gap);
      while (i > 0 && bull[i - 1]!.zone[0] > zoneLow) {
        bull[i] = bull[i - 1]!;
        i--;
      }
      bull[i] = gap;
    } else {
      // Sorted by zone high descending.
      const bear = this.bear;
      let i = bear.length;
      bear.push(gap);
      while (i > 0 && bear[i - 1]!.zone[1] < zoneHigh) {
        bear[i] = bear[i - 1]!;
        i--;
      }
      bear[i] = gap;
    }
    this.latest = gap;
    if (this.maxAge !== Number.POSITIVE_INFINITY) {
      this.queue.push(gap);
      this.queueAt.push(this.seen);
    }
    return gap;
  }

  /** Closes the gaps confirmed at candle index `at` or before that are still open. */
  private expire(at: number): void {
    const queue = this.queue;
    let head = this.head;
    while (head < queue.length && this.queueAt[head]! <= at) {
      const gap = queue[head++]!;
      const list = gap.type === 'bullish' ? this.bull : this.bear;
      const i = indexIn(list, gap);
      if (i < 0) continue; // mitigated or dropped already
      list.splice(i, 1);
      // The latest open gap is the newest: if it expires, every open gap is older and expires too.
      if (gap === this.latest) this.latest = null;
    }
    if (head === queue.length) {
      queue.length = 0;
      this.queueAt.length = 0;
      head = 0;
    } else if (head >= 1024 && head * 2 >= queue.length) {
      queue.splice(0, head);
      this.queueAt.splice(0, head);
      head = 0;
    }
    this.head = head;
  }

  /** Drops the oldest open gap (smallest id). O(open zones); only when the cap is reached. */
  private dropOldest(): void {
    let list = this.bull;
    let at = -1;
    let id = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.bull.length; i++) {
      if (this.bull[i]!.id < id) {
        id = this.bull[i]!.id;
        list = this.bull;
        at = i;
      }
    }
    for (let i = 0; i < this.bear.length; i++) {
      if (this.bear[i]!.id < id) {
        id = this.bear[i]!.id;
        list = this.bear;
        at = i;
      }
    }
    if (at >= 0) {
      const [dropped] = list.splice(at, 1);
      if (dropped === this.latest) this.latest = this.newestOpen();
    }
  }

  /** The open gap with the largest id. O(open zones); only when the latest one is mitigated. */
  private newestOpen(): FairValueGap | null {
    let best: FairValueGap | null = null;
    for (const z of this.bull) if (best === null || z.id > best.id) best = z;
    for (const z of this.bear) if (best === null || z.id > best.id) best = z;
    return best;
  }

  get value(): FvgValue | null {
    return this.cur === null ? null : (this.copy ??= { ...this.cur });
  }

  get isReady(): boolean {
    return this.cur !== null;
  }

  /** The open (unmitigated) gaps, oldest first. The array is a copy; the gap records are shared. */
  get openZones(): FairValueGap[] {
    return [...this.bull, ...this.bear].sort((x, y) => x.id - y.id);
  }

  reset(): void {
    this.bull = [];
    this.bear = [];
    this.latest = null;
    this.queue = [];
    this.queueAt = [];
    this.head = 0;
    this.seen = 0;
    this.nextId = 1;
    this.h1 = this.l1 = this.h2 = this.l2 = this.t2 = Number.NaN;
    this.cur = null;
    this.copy = null;
  }
}

/**
 * Where `gap` is in `list` (an open stack: bullish by zone low ascending, bearish by zone high
 * descending), or −1: a binary search for the first zone with its edge, then the equal edges.
 */
function indexIn(list: readonly FairValueGap[], gap: FairValueGap): number {
  const isBull = gap.type === 'bullish';
  const edge = isBull ? gap.zone[0] : gap.zone[1];
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = isBull ? list[mid]!.zone[0] : list[mid]!.zone[1];
    if (isBull ? e < edge : e > edge) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < list.length; i++) {
    const z = list[i]!;
    if (z === gap) return i;
    if ((isBull ? z.zone[0] : z.zone[1]) !== edge) break;
  }
  return -1;
}
