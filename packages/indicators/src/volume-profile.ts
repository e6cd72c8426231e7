import { assertCandle, assertInteger, assertNumber, type Candle, type StreamingIndicator } from './types.js';

export interface VolumeProfileOptions {
  /** Candles in the rolling window (default 100). */
  window?: number;
  /**
   * Target number of price rows across the window's high–low range (default 24). Ignored when
   * `rowSize` is given. See {@link VolumeProfile} for how the row size follows the range.
   */
  rowCount?: number;
  /**
   * Fixed row height in price units (e.g. 0.0001 for one EUR/USD pip). Row boundaries are then the
   * multiples of rowSize (a row covers [k × rowSize, (k + 1) × rowSize)) and never move.
   */
  rowSize?: number;
  /**
   * With `rowCount`: how far the row count may drift from rowCount (default √2 − 1). The row size
   * is range / rowCount rounded, on a log scale, to the nearest of a ladder whose steps are at
   * most (1 + tolerance)² apart, so the range spans rowCount / (1 + tolerance) to rowCount ×
   * (1 + tolerance) rows: with the default the row sizes are the powers of two. A smaller
   * tolerance means a finer ladder, and more grid rebuilds.
   */
  rowCountTolerance?: number;
  /** Share of the window's volume in the value area, in percent (default 70). */
  valueAreaPercent?: number;
  /** Largest number of rows the profile may span before `update` throws (default 100000). */
  maxRows?: number;
}

export interface VolumeProfileValue {
  /** Point of control: the middle of the row with the most volume. */
  poc: number;
  /** Value area high: the upper edge of the value area's top row. */
  vah: number;
  /** Value area low: the lower edge of the value area's bottom row. */
  val: number;
  /** Volume in the POC row. */
  pocVolume: number;
  /** Volume inside the value area. */
  valueAreaVolume: number;
  /** Volume of the whole window. */
  totalVolume: number;
  /** Row height in price units. */
  rowSize: number;
  /** Rows from the lowest to the highest occupied one. */
  rows: number;
  /** Lower edge of the lowest occupied row. */
  low: number;
  /** Upper edge of the highest occupied row. */
  high: number;
}

export interface VolumeProfileRow {
  /** Lower edge of the row. */
  low: number;
  /** Upper edge of the row. */
  high: number;
  volume: number;
}

// Snap tolerance, in rows, for prices that sit on a row boundary up to rounding.
const EDGE_EPS = 1e-9;
// With `rowCount`, rows are never smaller than this share of the window's largest absolute price
// (so row indices stay within ±2^20 and a flat window still has rows), nor than MIN_ROW_SIZE (so
// a row size squared stays a normal number).
const MIN_ROW_SHARE = 2 ** -20;
const MIN_ROW_SIZE = 2 ** -500;
// With `rowSize`, the grid's origin is a multiple of 2^24 rows (0 unless prices are huge in rows).
const ANCHOR_ROWS = 2 ** 24;
// The volume quantum follows the window's largest volume in steps of 2^8.
const QUANTUM_LEVEL_BITS = 8;

/**
 * Volume profile of a rolling window of the last `window` candles: each candle's volume spread
 * uniformly over its [low, high], the POC (ties to the row nearest the centre, then the lower)
 * and the CBOT value area. The definitions, the grid rules and the sources are in the package
 * README.
 *
 * The value is a function of the window's candles alone, whatever came before them: the grid
 * (row size and origin) and the volume quantum are chosen from the window's extremes, and every
 * amount is a whole number of quanta, so the rows' sums are exact in whatever order candles came
 * and went. Why it is fast: while the grid and the quantum hold, a candle adds its amounts to the
 * rows it covers and its eviction subtracts exactly those amounts (kept per candle); the POC is
 * kept incrementally; the window's extremes come from block maxima. Work per candle: O(rows the
 * candle covers), amortized; O(window) when the grid or the quantum changes.
 */
export class VolumeProfile implements StreamingIndicator<VolumeProfileValue> {
  readonly window: number;
  readonly rowCount: number;
  readonly fixedRowSize: number | null;
  readonly rowCountTolerance: number;
  readonly valueAreaPercent: number;
  readonly maxRows: number;
  readonly warmUp: number;
  // Row sizes with `rowCount` are k / ladderScale × a power of two (ladderScale ≤ k < 2 × ladderScale).
  private readonly ladderScale: number;
  // A candle's volume is at most 2^unitBits quanta, a window's at most 2^51: sums stay exact.
  private readonly unitBits: number;

  // Ring of the window's candles (only what the profile needs).
  private readonly highs: Float64Array;
  private readonly lows: Float64Array;
  private readonly vols: Float64Array;
  // Per ring slot, in quanta: the candle's volume, and the amounts it put in its first row, each
  // middle row and its last row (with its first and last grid rows), so that eviction subtracts
  // exactly what was added.
  private readonly slotUnits: Float64Array;
  private readonly slotA: Int32Array;
  private readonly slotB: Int32Array;
  private readonly slotFirst: Float64Array;
  private readonly slotMid: Float64Array;
  private readonly slotLast: Float64Array;
  private head = 0; // index of the oldest candle
  private count = 0;
  // The highest high, lowest low and largest volume of the window's candles with volume, by
  // blocks of `window` candles (van Herk / Gil-Werman): the ring's slot is the candle's number
  // modulo window, so the window is the tail of the last full block (its suffix extremes, made
  // when it filled) and the head of the current one (its running extremes).
  private readonly suffixHigh: Float64Array;
  private readonly suffixLow: Float64Array;
  private readonly suffixVolume: Float64Array;
  private blockHigh = Number.NEGATIVE_INFINITY;
  private blockLow = Number.POSITIVE_INFINITY;
  private blockVolume = 0;
  private windowHigh = Number.NEGATIVE_INFINITY;
  private windowLow = Number.POSITIVE_INFINITY;
  private windowMaxVolume = 0;

  // The grid: row i covers [anchor + i × step, anchor + (i + 1) × step). Valid while the window
  // has volume; checked against the extremes gridHigh, gridLow and gridVolume.
  private anchor = 0;
  private anchorChunks = 0; // with rowSize: anchor = anchorChunks × rowSize × ANCHOR_ROWS
  private step = 0;
  // With rowCount: step stays while stepDownLimit < x² ≤ stepUpLimit (see rowSizeFor).
  private stepDownLimit = 0;
  private stepUpLimit = 0;
  private invStep = 0;
  private gridValid = false;
  private gridHigh = Number.NaN;
  private gridLow = Number.NaN;
  private gridVolume = Number.NaN;
  private rebuilds = 0;
  // Volumes are counted in whole quanta: units = round(volume / quantum). quantum = 2^(level −
  // unitBits) for the window's largest volume in (levelLow, levelHigh] = (2^(level −
  // QUANTUM_LEVEL_BITS), 2^level], level a multiple of QUANTUM_LEVEL_BITS.
  private quantum = 1;
  private invQuantum = 1;
  private levelLow = 0;
  private levelHigh = 0;
  private windowUnits = 0;

  // Row storage, in quanta: position p holds grid row base + p.
  private base = 0;
  private vol: Float64Array;
  private cnt: Int32Array;
  private lo = 0; // lowest occupied grid row (cnt > 0)
  private hi = -1; // highest occupied grid row; hi < lo when empty

  // POC cache: grid row and its volume, valid unless pocDirty; pocTie = the last full scan saw a tie.
  private pocRow = 0;
  private pocVol = 0;
  private pocDirty = true;
  private pocTie = false;

  // Scratch outputs of rowsOf() and split().
  private ra = 0;
  private rb = 0;
  private pFirst = 0;
  private pMid = 0;
  private pLast = 0;

  /** The value of the current window once computed; `computed` says whether it is (advance leaves it to be). */
  private last: VolumeProfileValue | null = null;
  private computed = true;

  constructor(options: VolumeProfileOptions = {}) {
    this.window = options.window ?? 100;
    this.rowCount = options.rowCount ?? 24;
    this.fixedRowSize = options.rowSize ?? null;
    this.rowCountTolerance = options.rowCountTolerance ?? Math.SQRT2 - 1;
    this.valueAreaPercent = options.valueAreaPercent ?? 70;
    this.maxRows = options.maxRows ?? 100_000;
    assertInteger('window', this.window, 1);
    assertInteger('rowCount', this.rowCount, 1);
    if (this.fixedRowSize !== null && !(this.fixedRowSize > 0 && Number.isFinite(this.fixedRowSize))) {
      throw new RangeError(`rowSize must be a positive finite number, got ${this.fixedRowSize}`);
    }
    assertNumber('rowCountTolerance', this.rowCountTolerance, 0);
    assertNumber('valueAreaPercent', this.valueAreaPercent, 0, 100);
    assertInteger('maxRows', this.maxRows, 1);
    this.warmUp = this.window;
    const t = this.rowCountTolerance;
    // Ladder steps at most (1 + t)² apart, so that the nearest is within a factor 1 + t.
    this.ladderScale = 2 ** Math.min(20, Math.max(0, Math.ceil(-Math.log2((1 + t) * (1 + t) - 1))));
    this.unitBits = 51 - Math.ceil(Math.log2(this.window));
    // One slot more than the window: slot `window` holds the grid's bounds for rowsOf.
    this.highs = new Float64Array(this.window + 1);
    this.lows = new Float64Array(this.window + 1);
    this.vols = new Float64Array(this.window);
    this.slotUnits = new Float64Array(this.window);
    this.slotA = new Int32Array(this.window);
    this.slotB = new Int32Array(this.window);
    this.slotFirst = new Float64Array(this.window);
    this.slotMid = new Float64Array(this.window);
    this.slotLast = new Float64Array(this.window);
    this.suffixHigh = new Float64Array(this.window).fill(Number.NEGATIVE_INFINITY);
    this.suffixLow = new Float64Array(this.window).fill(Number.POSITIVE_INFINITY);
    this.suffixVolume = new Float64Array(this.window);
    const cap = nextPow2(Math.max(16, this.fixedRowSize === null ? 2 * this.rowCount + 4 : 64));
    this.vol = new Float64Array(cap);
    this.cnt = new Int32Array(cap);
  }

  update(candle: Candle): VolumeProfileValue | null {
    this.advance(candle);
    return this.value;
  }

  /**
   * Feeds the candle as {@link update} does without building the value: the value is computed
   * when `value` is first read after it (a caller that reads it on some candles only skips the
   * value area on the others). Whether there is a value (`isReady`).
   */
  advance(candle: Candle): boolean {
    assertCandle(candle);
    const { high, low, volume } = candle;

    // Evict the oldest candle when the window is full.
    const w = this.window;
    if (this.count === w) {
      const h = this.head;
      if (this.vols[h]! > 0) this.remove(h);
      this.head = h + 1 === w ? 0 : h + 1;
      this.count--;
    }
    // Append the new candle to the ring.
    let slot = this.head + this.count;
    if (slot >= w) slot -= w;
    this.highs[slot] = high;
    this.lows[slot] = low;
    this.vols[slot] = volume;
    this.count++;
    if (volume > 0) {
      if (high > this.blockHigh) this.blockHigh = high;
      if (low < this.blockLow) this.blockLow = low;
      if (volume > this.blockVolume) this.blockVolume = volume;
    }
    if (slot === w - 1) {
      this.closeBlock();
    } else {
      const o = slot + 1; // the oldest candle's slot, in the last full block
      this.windowHigh = this.suffixHigh[o]! > this.blockHigh ? this.suffixHigh[o]! : this.blockHigh;
      this.windowLow = this.suffixLow[o]! < this.blockLow ? this.suffixLow[o]! : this.blockLow;
      this.windowMaxVolume = this.suffixVolume[o]! > this.blockVolume ? this.suffixVolume[o]! : this.blockVolume;
    }

    if (this.windowMaxVolume === 0) {
      // No candle of the window has volume: no rows (eviction has taken every amount out).
      this.gridValid = false;
      this.place(slot);
    } else if (this.gridValid && this.windowHigh === this.gridHigh && this.windowLow === this.gridLow && this.windowMaxVolume === this.gridVolume) {
      this.place(slot);
    } else if (this.chooseGrid()) {
      this.rebuild();
    } else {
      this.place(slot);
    }

    this.computed = false;
    this.last = null;
    return this.isReady;
  }

  /**
   * The ring has just filled slots 0..window − 1 with one block: its suffix extremes for the
   * windows to come, and the window's own extremes (the block's).
   */
  private closeBlock(): void {
    let wh = Number.NEGATIVE_INFINITY;
    let wl = Number.POSITIVE_INFINITY;
    let maxVolume = 0;
    for (let i = this.window - 1; i >= 0; i--) {
      const v = this.vols[i]!;
      if (v > 0) {
        if (this.highs[i]! > wh) wh = this.highs[i]!;
        if (this.lows[i]! < wl) wl = this.lows[i]!;
        if (v > maxVolume) maxVolume = v;
      }
      this.suffixHigh[i] = wh;
      this.suffixLow[i] = wl;
      this.suffixVolume[i] = maxVolume;
    }
    this.windowHigh = wh;
    this.windowLow = wl;
    this.windowMaxVolume = maxVolume;
    this.blockHigh = Number.NEGATIVE_INFINITY;
    this.blockLow = Number.POSITIVE_INFINITY;
    this.blockVolume = 0;
  }

  /**
   * Sets the grid and the quantum the window's extremes call for (see the README's grid rules);
   * answers whether they differ from those the rows were built on (or there were none), i.e.
   * whether the rows must be rebuilt. Each is a function of the extremes alone.
   */
  private chooseGrid(): boolean {
    const wh = this.windowHigh;
    const wl = this.windowLow;
    let changed = !this.gridValid;
    if (wh !== this.gridHigh || wl !== this.gridLow) {
      if (this.fixedRowSize !== null) {
        const chunk = this.fixedRowSize * ANCHOR_ROWS;
        const chunks = Math.floor(wl / chunk);
        if (chunks !== this.anchorChunks || this.step === 0) {
          this.anchorChunks = chunks;
          this.anchor = chunks * chunk;
          this.step = this.fixedRowSize;
          this.invStep = 1 / this.step;
          changed = true;
        }
      } else {
        const x = Math.max((wh - wl) / this.rowCount, Math.max(Math.abs(wh), Math.abs(wl)) * MIN_ROW_SHARE, MIN_ROW_SIZE);
        const x2 = x * x;
        if (!(x2 > this.stepDownLimit && x2 <= this.stepUpLimit)) {
          const step = rowSizeFor(x, this.ladderScale);
          const { below, above } = ladderNeighbours(step, this.ladderScale);
          this.stepDownLimit = below * step;
          this.stepUpLimit = step * above;
          if (step !== this.step) {
            this.step = step;
            this.invStep = 1 / step;
            changed = true;
          }
        }
      }
      this.gridHigh = wh;
      this.gridLow = wl;
    }
    const maxVolume = this.windowMaxVolume;
    if (maxVolume !== this.gridVolume) {
      if (!(maxVolume > this.levelLow && maxVolume <= this.levelHigh)) {
        let level = Math.ceil(Math.log2(maxVolume));
        if (2 ** level < maxVolume) level++;
        level = QUANTUM_LEVEL_BITS * Math.ceil(level / QUANTUM_LEVEL_BITS);
        this.levelHigh = 2 ** level;
        this.levelLow = 2 ** (level - QUANTUM_LEVEL_BITS);
        const quantum = 2 ** Math.max(level - this.unitBits, -1022);
        if (quantum !== this.quantum) {
          this.quantum = quantum;
          this.invQuantum = 1 / quantum;
          changed = true;
        }
      }
      this.gridVolume = maxVolume;
    }
    this.gridValid = true;
    return changed;
  }

  /**
   * Sets ra, rb to the first and last grid rows the range [low, high] of ring slot `slot`
   * covers (as doubles, so the caller can range-check them before they are used as int32
   * indices). Takes the slot, not the prices: a number passed to a call the compiler does not
   * inline is allocated.
   */
  private rowsOf(slot: number): void {
    const high = this.highs[slot]!;
    const low = this.lows[slot]!;
    const a = Math.floor((low - this.anchor) * this.invStep + EDGE_EPS);
    let b = a;
    if (high > low) {
      b = Math.ceil((high - this.anchor) * this.invStep - EDGE_EPS) - 1;
      if (b < a) b = a;
    }
    this.ra = a;
    this.rb = b;
  }

  /**
   * The whole quanta of the units of the candle of ring slot `slot` (slotUnits) that fall in its
   * first and last rows (pFirst, pLast) and in each full row between (pMid), for rows ra..rb
   * (pFirst = units when ra = rb). Takes the slot, not the prices: a number passed to a call the
   * compiler does not inline is allocated.
   */
  private split(slot: number): void {
    const units = this.slotUnits[slot]!;
    const a = this.ra;
    const b = this.rb;
    if (a === b) {
      this.pFirst = units;
      return;
    }
    const step = this.step;
    let first = this.anchor + (a + 1) * step - this.lows[slot]!;
    let lastPart = this.highs[slot]! - (this.anchor + b * step);
    if (first < 0) first = 0;
    else if (first > step) first = step;
    if (lastPart < 0) lastPart = 0;
    else if (lastPart > step) lastPart = step;
    const covered = first + lastPart + (b - a - 1) * step;
    const density = covered > 0 ? units / covered : 0;
    this.pFirst = roundUnits(first * density);
    this.pLast = roundUnits(lastPart * density);
    this.pMid = roundUnits(step * density);
  }

  /**
   * Places the candle of ring slot `slot` on the current grid: adds its amounts to the rows it
   * covers (none without volume), remembers them for its eviction and keeps the POC.
   */
  private place(slot: number): void {
    const volume = this.vols[slot]!;
    if (!(volume > 0)) {
      this.slotUnits[slot] = 0;
      this.slotA[slot] = 1;
      this.slotB[slot] = 0;
      return;
    }
    const units = roundUnits(volume * this.invQuantum);
    this.slotUnits[slot] = units;
    this.windowUnits += units;
    this.rowsOf(slot);
    const a = this.ra | 0;
    const b = this.rb | 0;
    this.ensureRows(a, b);
    this.split(slot);
    this.addAmounts(slot, a, b);
    if (this.hi < this.lo) {
      this.lo = a;
      this.hi = b;
      this.pocDirty = true;
    } else {
      if (a < this.lo) {
        this.lo = a;
        if (this.pocTie) this.pocDirty = true; // the centre moved: a tie may now break otherwise
      }
      if (b > this.hi) {
        this.hi = b;
        if (this.pocTie) this.pocDirty = true;
      }
    }
    // Incremental POC: only the rows just raised can overtake it.
    if (!this.pocDirty) {
      const vol = this.vol;
      const pa = (a - this.base) | 0;
      const pb = (b - this.base) | 0;
      const poc = this.pocRow;
      let best = poc >= a && poc <= b ? vol[(poc - this.base) | 0]! : this.pocVol;
      let row = poc;
      for (let p = pa; p <= pb; p++) {
        const v = vol[p]!;
        if (v > best) {
          best = v;
          row = p + this.base;
        } else if (v === best && p + this.base !== row) {
          this.pocDirty = true; // a tie: let the full scan apply the tie rule
        }
      }
      this.pocRow = row;
      this.pocVol = best;
    }
  }

  /**
   * Puts the amounts `split` computed into rows a..b and remembers them, with the rows, under
   * ring slot `slot` (whose slotUnits are set) for the candle's eviction.
   */
  private addAmounts(slot: number, a: number, b: number): void {
    this.slotA[slot] = a;
    this.slotB[slot] = b;
    this.slotFirst[slot] = this.pFirst;
    this.slotMid[slot] = this.pMid;
    this.slotLast[slot] = this.pLast;
    const vol = this.vol;
    const cnt = this.cnt;
    const pa = (a - this.base) | 0;
    const pb = (b - this.base) | 0;
    vol[pa]! += this.pFirst;
    cnt[pa]!++;
    if (pb !== pa) {
      const mid = this.pMid;
      for (let p = pa + 1; p < pb; p++) {
        vol[p]! += mid;
        cnt[p]!++;
      }
      vol[pb]! += this.pLast;
      cnt[pb]!++;
    }
  }

  /** Removes the candle of ring slot `slot`: subtracts exactly the amounts it added. */
  private remove(slot: number): void {
    const a = this.slotA[slot]!;
    const b = this.slotB[slot]!;
    if (b < a) return; // a candle without volume placed nothing
    this.windowUnits -= this.slotUnits[slot]!;
    const first = this.slotFirst[slot]!;
    const mid = this.slotMid[slot]!;
    const last = this.slotLast[slot]!;
    const vol = this.vol;
    const cnt = this.cnt;
    const base = this.base;
    const pa = (a - base) | 0;
    const pb = (b - base) | 0;
    cnt[pa]!--;
    vol[pa]! -= first;
    if (pb !== pa) {
      for (let p = pa + 1; p < pb; p++) {
        cnt[p]!--;
        vol[p]! -= mid;
      }
      cnt[pb]!--;
      vol[pb]! -= last;
    }
    let lo = this.lo;
    let hi = this.hi;
    while (lo <= hi && cnt[(lo - base) | 0] === 0) lo++;
    while (hi >= lo && cnt[(hi - base) | 0] === 0) hi--;
    if (hi < lo) {
      lo = 0;
      hi = -1;
    }
    // The POC row went down (another row may now lead), or the centre moved under a tie.
    if ((this.pocRow >= a && this.pocRow <= b) || (this.pocTie && (lo !== this.lo || hi !== this.hi))) {
      this.pocDirty = true;
    }
    this.lo = lo;
    this.hi = hi;
  }

  /** Makes grid rows a..b addressable, re-laying the row storage (not the candles) if needed. */
  private ensureRows(a: number, b: number): void {
    const cap = this.vol.length;
    if (a >= this.base && b < this.base + cap) return;
    const occupied = this.hi >= this.lo;
    const spanLo = occupied && this.lo < a ? this.lo : a;
    const spanHi = occupied && this.hi > b ? this.hi : b;
    const need = spanHi - spanLo + 1;
    if (need > this.maxRows) {
      throw new RangeError(`volume profile would span ${need} rows (maxRows ${this.maxRows}); use a larger rowSize`);
    }
    const newCap = nextPow2(Math.max(16, 2 * need));
    const newBase = (spanLo - Math.floor((newCap - need) / 2)) | 0;
    const vol = new Float64Array(newCap);
    const cnt = new Int32Array(newCap);
    if (occupied) {
      for (let i = this.lo; i <= this.hi; i++) {
        vol[i - newBase] = this.vol[i - this.base]!;
        cnt[i - newBase] = this.cnt[i - this.base]!;
      }
    }
    this.vol = vol;
    this.cnt = cnt;
    this.base = newBase;
  }

  /** Places every candle of the window afresh on the grid and quantum chooseGrid set. */
  private rebuild(): void {
    this.rebuilds++;
    // Every candle with volume lies within the rows of [gridLow, gridHigh]: size the storage once,
    // then place the candles with no per-candle bounds bookkeeping.
    const bounds = this.window;
    this.highs[bounds] = this.gridHigh;
    this.lows[bounds] = this.gridLow;
    this.rowsOf(bounds);
    const need = this.rb - this.ra + 3; // one spare row each side for the flat-candle rounding edge
    if (need > this.maxRows) {
      throw new RangeError(`volume profile would span ${need} rows (maxRows ${this.maxRows}); use a larger rowSize`);
    }
    if (this.vol.length < 2 * need) {
      const cap = nextPow2(Math.max(16, 2 * need));
      this.vol = new Float64Array(cap);
      this.cnt = new Int32Array(cap);
    } else {
      this.vol.fill(0);
      this.cnt.fill(0);
    }
    this.base = (this.ra - 1 - Math.floor((this.vol.length - need) / 2)) | 0;
    const w = this.window;
    const invQuantum = this.invQuantum;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    let total = 0;
    for (let j = 0, i = this.head; j < this.count; j++, i = i + 1 === w ? 0 : i + 1) {
      const volume = this.vols[i]!;
      if (!(volume > 0)) {
        this.slotA[i] = 1;
        this.slotB[i] = 0;
        continue;
      }
      const units = roundUnits(volume * invQuantum);
      this.slotUnits[i] = units;
      total += units;
      this.rowsOf(i);
      const a = this.ra | 0;
      const b = this.rb | 0;
      this.split(i);
      this.addAmounts(i, a, b);
      if (a < lo) lo = a;
      if (b > hi) hi = b;
    }
    this.windowUnits = total;
    this.lo = lo;
    this.hi = hi;
    this.pocDirty = true;
  }

  /** Full POC scan over positions pLo..pHi: most volume; ties to the row nearest the centre, then the lower one. */
  private scanPoc(pLo: number, pHi: number): void {
    const vol = this.vol;
    let pPoc = pLo;
    let best = -1;
    let tie = false;
    for (let p = pLo; p <= pHi; p++) {
      const v = vol[p]!;
      if (v > best) {
        best = v;
        pPoc = p;
        tie = false;
      } else if (v === best) {
        tie = true;
      }
    }
    if (tie) {
      const center2 = pLo + pHi;
      let bestDist = Math.abs(2 * pPoc - center2);
      for (let p = pPoc + 1; p <= pHi; p++) {
        if (vol[p] !== best) continue;
        const dist = Math.abs(2 * p - center2);
        if (dist < bestDist) {
          pPoc = p;
          bestDist = dist;
        }
      }
    }
    this.pocRow = pPoc + this.base;
    this.pocVol = best;
    this.pocTie = tie;
    this.pocDirty = false;
  }

  /** The value of a full window with volume (isReady). */
  private compute(): VolumeProfileValue {
    const vol = this.vol;
    const base = this.base;
    const pLo = (this.lo - base) | 0;
    const pHi = (this.hi - base) | 0;
    const total = this.windowUnits;
    // POC: most volume; ties to the row nearest the centre, then the lower one.
    if (this.pocDirty) this.scanPoc(pLo, pHi);
    const pPoc = (this.pocRow - base) | 0;
    const best = this.pocVol;

    // Value area: expand from the POC by pairs of rows, the larger pair first (up on a tie).
    const target = (total * this.valueAreaPercent) / 100;
    let va = best;
    let up = pPoc; // value area rows: dn..up
    let dn = pPoc;
    // The next pair on each side (one row where only one is left; −∞ when none is left, so that
    // the other side is taken). A side's sum is recomputed only after that side was taken.
    const NONE = Number.NEGATIVE_INFINITY;
    let upSum = up + 2 <= pHi ? vol[up + 1]! + vol[up + 2]! : up < pHi ? vol[up + 1]! : NONE;
    let dnSum = dn - 2 >= pLo ? vol[dn - 1]! + vol[dn - 2]! : dn > pLo ? vol[dn - 1]! : NONE;
    while (va < target && (upSum !== NONE || dnSum !== NONE)) {
      if (upSum >= dnSum) {
        va += upSum;
        up = up + 2 <= pHi ? up + 2 : pHi;
        upSum = up + 2 <= pHi ? vol[up + 1]! + vol[up + 2]! : up < pHi ? vol[up + 1]! : NONE;
      } else {
        va += dnSum;
        dn = dn - 2 >= pLo ? dn - 2 : pLo;
        dnSum = dn - 2 >= pLo ? vol[dn - 1]! + vol[dn - 2]! : dn > pLo ? vol[dn - 1]! : NONE;
      }
    }
    const anchor = this.anchor;
    const step = this.step;
    return {
      poc: anchor + (pPoc + base + 0.5) * step,
      vah: anchor + (up + base + 1) * step,
      val: anchor + (dn + base) * step,
      pocVolume: best * this.quantum,
      valueAreaVolume: va * this.quantum,
      totalVolume: total * this.quantum,
      rowSize: step,
      rows: pHi - pLo + 1,
      low: anchor + this.lo * step,
      high: anchor + (this.hi + 1) * step,
    };
  }

  get value(): VolumeProfileValue | null {
    if (!this.computed) {
      this.last = this.isReady ? this.compute() : null;
      this.computed = true;
    }
    return this.last;
  }

  /** The value after the last candle, as `value` (computed once per candle, when first read): here for the same shape as the other indicators. */
  get current(): Readonly<VolumeProfileValue> | null {
    return this.value;
  }

  /** Whether there is a value (the conditions under which compute gives one, without computing it). */
  get isReady(): boolean {
    return this.count === this.window && this.hi >= this.lo && this.windowUnits !== 0;
  }

  /** Candles currently in the window. */
  get size(): number {
    return this.count;
  }

  /** How many times the grid has been (re)built; for tests and diagnostics. */
  get gridBuilds(): number {
    return this.rebuilds;
  }

  /** The rows from the lowest to the highest occupied one, lowest first (for charting). O(rows). */
  profile(): VolumeProfileRow[] {
    const rows: VolumeProfileRow[] = [];
    for (let i = this.lo; i <= this.hi; i++) {
      rows.push({
        low: this.anchor + i * this.step,
        high: this.anchor + (i + 1) * this.step,
        volume: this.vol[i - this.base]! * this.quantum,
      });
    }
    return rows;
  }

  reset(): void {
    this.head = 0;
    this.count = 0;
    this.suffixHigh.fill(Number.NEGATIVE_INFINITY);
    this.suffixLow.fill(Number.POSITIVE_INFINITY);
    this.suffixVolume.fill(0);
    this.blockHigh = this.windowHigh = Number.NEGATIVE_INFINITY;
    this.blockLow = this.windowLow = Number.POSITIVE_INFINITY;
    this.blockVolume = this.windowMaxVolume = 0;
    this.gridValid = false;
    this.gridHigh = this.gridLow = this.gridVolume = Number.NaN;
    this.levelLow = this.levelHigh = 0;
    this.anchor = this.anchorChunks = this.step = this.stepDownLimit = this.stepUpLimit = 0;
    this.rebuilds = 0;
    this.pocDirty = true;
    this.pocTie = false;
    this.windowUnits = 0;
    this.vol.fill(0);
    this.cnt.fill(0);
    this.lo = 0;
    this.hi = -1;
    this.last = null;
    this.computed = true;
  }
}

function nextPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * The row size for x = range / rowCount: the value of the ladder k / scale × 2^e (k and e whole,
 * scale = 2^s ≤ k < 2 × scale) nearest x on a log scale — of lo ≤ x < hi, its neighbours there,
 * hi when x² > lo × hi. Equivalently the v with below × v < x² ≤ v × above (ladderNeighbours).
 */
function rowSizeFor(x: number, scale: number): number {
  const power = powerOfTwoAtOrBelow(x);
  const k = Math.floor((x / power) * scale);
  const lo = (k / scale) * power;
  const hi = ((k + 1) / scale) * power;
  return x * x > lo * hi ? hi : lo;
}

/** The ladder values next to `v` (itself on the ladder of rowSizeFor), below and above it. */
function ladderNeighbours(v: number, scale: number): { below: number; above: number } {
  const power = powerOfTwoAtOrBelow(v);
  const k = (v / power) * scale;
  return { below: k === scale ? ((2 * scale - 1) / scale) * (power / 2) : ((k - 1) / scale) * power, above: ((k + 1) / scale) * power };
}

/** The power of two p with p ≤ x < 2p, for a positive normal x. */
function powerOfTwoAtOrBelow(x: number): number {
  const power = 2 ** Math.floor(Math.log2(x));
  return power > x ? power / 2 : power * 2 <= x ? power * 2 : power;
}

/**
 * x ≥ 0 rounded to a whole number (a tie to the even one): adding and taking away 2^52 leaves no
 * fraction for x < 2^52, which every amount in quanta is. Cheaper than Math.round in the loops.
 */
function roundUnits(x: number): number {
  return x + 4503599627370496 - 4503599627370496;
}
