import { assertCandle, assertInteger, assertNumber, type Candle, type StreamingIndicator } from './types.js';

export interface VolumeProfileOptions {
  /** Candles in the rolling window (default 100). */
  window?: number;
  /**
   * Target number of price rows across the window's high–low range (default 24). Ignored when
   * `rowSize` is given. See {@link VolumeProfile} for how the grid follows the range.
   */
  rowCount?: number;
  /**
   * Fixed row height in price units (e.g. 0.0001 for one EUR/USD pip). Row boundaries are then the
   * multiples of rowSize (a row covers [k × rowSize, (k + 1) × rowSize)) and never move.
   */
  rowSize?: number;
  /**
   * With `rowCount`: the grid is rebuilt when the rows the window occupies fall outside
   * [rowCount / (1 + tolerance), rowCount × (1 + tolerance)] (default 0.25).
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
// Row indices stay within ±INDEX_LIMIT (int32-safe); beyond it the grid is re-anchored.
const INDEX_LIMIT = 2 ** 29;

/**
 * Volume profile of a rolling window of the last `window` candles: each candle's volume spread
 * uniformly over its [low, high], the POC (ties to the row nearest the centre, then the lower)
 * and the CBOT value area. The definitions, the grid rules and the sources are in the package
 * README. Why it is fast: while the grid holds, a candle adds its amounts to the rows it covers
 * and its eviction subtracts exactly those amounts (kept per candle), so no rounding residue
 * builds up; the POC is kept incrementally; the grid is rebuilt only when the window's range
 * leaves a band around `rowCount` rows. Work per candle: O(rows the candle covers).
 */
export class VolumeProfile implements StreamingIndicator<VolumeProfileValue> {
  readonly window: number;
  readonly rowCount: number;
  readonly fixedRowSize: number | null;
  readonly rowCountTolerance: number;
  readonly valueAreaPercent: number;
  readonly maxRows: number;
  readonly warmUp: number;
  private readonly minSpan: number;
  private readonly maxSpan: number;

  // Ring of the window's candles (only what the profile needs).
  private readonly highs: Float64Array;
  private readonly lows: Float64Array;
  private readonly vols: Float64Array;
  // Per ring slot: the candle's first and last grid rows and the amounts it put in its first row,
  // each middle row and its last row, so that eviction subtracts exactly what was added.
  private readonly slotA: Int32Array;
  private readonly slotB: Int32Array;
  private readonly slotFirst: Float64Array;
  private readonly slotMid: Float64Array;
  private readonly slotLast: Float64Array;
  private head = 0; // index of the oldest candle
  private count = 0;

  // The grid: row i covers [anchor + i × step, anchor + (i + 1) × step).
  private anchor = 0;
  private step = 0;
  private invStep = 0;
  private gridValid = false;
  private flat = false; // grid built from a zero-range window: its row height is a placeholder
  private rebuilds = 0;
  // Sum of the window's candle volumes, kept incrementally (exact for integer volumes) and summed
  // afresh at every grid build.
  private windowVolume = 0;
  private withVolume = 0; // candles of the window with volume > 0 (0 → the total is exactly 0)

  // Row storage: position p holds grid row base + p.
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

  private last: VolumeProfileValue | null = null;

  constructor(options: VolumeProfileOptions = {}) {
    this.window = options.window ?? 100;
    this.rowCount = options.rowCount ?? 24;
    this.fixedRowSize = options.rowSize ?? null;
    this.rowCountTolerance = options.rowCountTolerance ?? 0.25;
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
    this.minSpan = Math.max(1, Math.floor(this.rowCount / (1 + this.rowCountTolerance)));
    this.maxSpan = Math.ceil(this.rowCount * (1 + this.rowCountTolerance));
    this.highs = new Float64Array(this.window);
    this.lows = new Float64Array(this.window);
    this.vols = new Float64Array(this.window);
    this.slotA = new Int32Array(this.window);
    this.slotB = new Int32Array(this.window);
    this.slotFirst = new Float64Array(this.window);
    this.slotMid = new Float64Array(this.window);
    this.slotLast = new Float64Array(this.window);
    const cap = nextPow2(Math.max(16, this.fixedRowSize === null ? 2 * this.maxSpan : 64));
    this.vol = new Float64Array(cap);
    this.cnt = new Int32Array(cap);
  }

  update(candle: Candle): VolumeProfileValue | null {
    assertCandle(candle);
    const { high, low, volume } = candle;

    // Evict the oldest candle when the window is full.
    const w = this.window;
    if (this.count === w) {
      const h = this.head;
      this.remove(h);
      if (this.vols[h]! > 0 && --this.withVolume === 0) this.windowVolume = 0;
      else this.windowVolume -= this.vols[h]!;
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
    this.windowVolume += volume;
    if (volume > 0) this.withVolume++;

    if (!this.gridValid) {
      this.rebuild();
    } else if (volume > 0) {
      this.rowsOf(high, low);
      const a = this.ra;
      const b = this.rb;
      let regrid = !(a > -INDEX_LIMIT && b < INDEX_LIMIT); // re-anchor before indices get huge
      if (!regrid && this.fixedRowSize === null) {
        const occupied = this.hi >= this.lo;
        const span = (occupied && this.hi > b ? this.hi : b) - (occupied && this.lo < a ? this.lo : a) + 1;
        regrid = span > this.maxSpan || (span < this.minSpan && !this.flat);
      }
      if (regrid) this.rebuild();
      else this.add(slot, high, low, volume);
    } else {
      // A candle without volume occupies no row; only the eviction may have shrunk the profile.
      this.slotA[slot] = 1;
      this.slotB[slot] = 0;
      if (this.fixedRowSize === null && this.hi >= this.lo && this.hi - this.lo + 1 < this.minSpan && !this.flat) {
        this.rebuild();
      }
    }

    const value = this.count === w ? this.compute() : null;
    this.last = value;
    return value;
  }

  /**
   * Sets ra, rb to the first and last grid rows the range [low, high] covers (as doubles, so
   * the caller can range-check them before they are used as int32 indices).
   */
  private rowsOf(high: number, low: number): void {
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
   * The part of a candle's volume that falls in its first and last rows (pFirst, pLast) and in
   * each full row between (pMid), for rows ra..rb (pFirst = volume when ra = rb).
   */
  private split(high: number, low: number, volume: number): void {
    const a = this.ra;
    const b = this.rb;
    if (a === b) {
      this.pFirst = volume;
      return;
    }
    const step = this.step;
    let first = this.anchor + (a + 1) * step - low;
    let lastPart = high - (this.anchor + b * step);
    if (first < 0) first = 0;
    else if (first > step) first = step;
    if (lastPart < 0) lastPart = 0;
    else if (lastPart > step) lastPart = step;
    const covered = first + lastPart + (b - a - 1) * step;
    const density = covered > 0 ? volume / covered : 0;
    this.pFirst = first * density;
    this.pLast = lastPart * density;
    this.pMid = step * density;
  }

  /**
   * Puts the amounts `split` computed into rows a..b and remembers them, with the rows, under
   * ring slot `slot` for the candle's eviction.
   */
  private place(slot: number, a: number, b: number): void {
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

  /**
   * Adds the candle of ring slot `slot` on the current grid (ra, rb must hold its rows, from
   * rowsOf) and remembers its rows and amounts for its eviction.
   */
  private add(slot: number, high: number, low: number, volume: number): void {
    const a = this.ra | 0;
    const b = this.rb | 0;
    this.ensureRows(a, b);
    this.split(high, low, volume);
    this.place(slot, a, b);
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
   * Removes the candle of ring slot `slot`: subtracts exactly the amounts add() (or rebuild())
   * added for it; a row no candle covers any more becomes exactly 0.
   */
  private remove(slot: number): void {
    const a = this.slotA[slot]!;
    const b = this.slotB[slot]!;
    if (b < a) return; // a candle without volume placed nothing
    const first = this.slotFirst[slot]!;
    const mid = this.slotMid[slot]!;
    const last = this.slotLast[slot]!;
    const vol = this.vol;
    const cnt = this.cnt;
    const base = this.base;
    const pa = (a - base) | 0;
    const pb = (b - base) | 0;
    if (--cnt[pa]! === 0) vol[pa] = 0;
    else vol[pa]! -= first;
    if (pb !== pa) {
      for (let p = pa + 1; p < pb; p++) {
        if (--cnt[p]! === 0) vol[p] = 0;
        else vol[p]! -= mid;
      }
      if (--cnt[pb]! === 0) vol[pb] = 0;
      else vol[pb]! -= last;
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

  /** Chooses the grid for the window's current range and places every candle of the window. */
  private rebuild(): void {
    const w = this.window;
    // The rows follow the candles that have volume (all candles when none has).
    let wl = Number.POSITIVE_INFINITY;
    let wh = Number.NEGATIVE_INFINITY;
    for (let pass = 0; pass < 2 && wl > wh; pass++) {
      for (let j = 0, i = this.head; j < this.count; j++, i = i + 1 === w ? 0 : i + 1) {
        if (pass === 0 && !(this.vols[i]! > 0)) continue;
        if (this.lows[i]! < wl) wl = this.lows[i]!;
        if (this.highs[i]! > wh) wh = this.highs[i]!;
      }
    }
    if (this.fixedRowSize !== null) {
      // Anchored on a multiple of rowSize near the window: the same row boundaries as rows
      // anchored at 0, with small row indices.
      this.step = this.fixedRowSize;
      this.anchor = Math.floor(wl / this.step) * this.step;
      this.flat = false;
    } else {
      const range = wh - wl;
      this.flat = !(range > 0);
      // A zero-range window gets a placeholder row height; the first candle with a real range
      // then spans more than maxSpan rows and triggers a proper rebuild.
      this.step = this.flat ? Math.max(Math.abs(wh), 1) * 1e-6 : range / this.rowCount;
      this.anchor = wl;
    }
    this.invStep = 1 / this.step;
    this.gridValid = true;
    this.rebuilds++;
    this.pocDirty = true;

    // Every candle of the window lies within the rows of [wl, wh]: size the storage once, then
    // place the candles with no per-candle bounds bookkeeping.
    this.rowsOf(wh, wl);
    let a = this.ra;
    let b = this.rb;
    const need = b - a + 3; // one spare row each side for the flat-candle rounding edge
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
    this.base = (a - 1 - Math.floor((this.vol.length - need) / 2)) | 0;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    let total = 0;
    let withVolume = 0;
    for (let j = 0, i = this.head; j < this.count; j++, i = i + 1 === w ? 0 : i + 1) {
      const high = this.highs[i]!;
      const low = this.lows[i]!;
      const volume = this.vols[i]!;
      total += volume;
      if (!(volume > 0)) {
        this.slotA[i] = 1;
        this.slotB[i] = 0;
        continue;
      }
      withVolume++;
      this.rowsOf(high, low);
      a = this.ra | 0;
      b = this.rb | 0;
      this.split(high, low, volume);
      this.place(i, a, b);
      if (a < lo) lo = a;
      if (b > hi) hi = b;
    }
    this.windowVolume = total;
    this.withVolume = withVolume;
    if (lo <= hi) {
      this.lo = lo;
      this.hi = hi;
    } else {
      this.lo = 0;
      this.hi = -1;
    }
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

  private compute(): VolumeProfileValue | null {
    const vol = this.vol;
    const base = this.base;
    const pLo = (this.lo - base) | 0;
    const pHi = (this.hi - base) | 0;
    if (pHi < pLo) return null;
    // POC: most volume; ties to the row nearest the centre, then the lower one.
    const total = this.windowVolume;
    if (this.withVolume === 0) return null;
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
      pocVolume: best,
      valueAreaVolume: va,
      totalVolume: total,
      rowSize: step,
      rows: pHi - pLo + 1,
      low: anchor + this.lo * step,
      high: anchor + (this.hi + 1) * step,
    };
  }

  get value(): VolumeProfileValue | null {
    return this.last;
  }

  get isReady(): boolean {
    return this.last !== null;
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
        volume: this.vol[i - this.base]!,
      });
    }
    return rows;
  }

  reset(): void {
    this.head = 0;
    this.count = 0;
    this.gridValid = false;
    this.flat = false;
    this.rebuilds = 0;
    this.pocDirty = true;
    this.pocTie = false;
    this.windowVolume = 0;
    this.withVolume = 0;
    this.vol.fill(0);
    this.cnt.fill(0);
    this.lo = 0;
    this.hi = -1;
    this.last = null;
  }
}

function nextPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
