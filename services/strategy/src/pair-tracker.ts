import {
  FairValueGaps,
  isValidCandle,
  StochRsi,
  Supertrend,
  VolumeProfile,
  type Candle,
  type FvgValue,
  type StochRsiValue,
  type SupertrendValue,
  type VolumeProfileValue,
} from '@fxdesk/indicators';
import { RingBuffer } from '@fxdesk/primitives';
import { TIMEFRAME_SECONDS, type ChartCandle, type PairRecord, type PairStatus, type Timeframe } from '@fxdesk/schemas';
import type { StrategyConfig } from './config.js';
import type { SourceQuote } from './market-source.js';
import { rulesOf, type StrategyRules } from './rules.js';
import type { IndicatorSnapshot, RuleCandle } from './signal-rule.js';

export interface TrackerSettings {
  timeframe: Timeframe;
  supertrend: { atrPeriod: number; multiplier: number };
  volumeProfileWindow: number;
  /** Candles a fair value gap stays open at most (FVG_MAX_AGE). */
  fvgMaxAge: number;
  /** Closed candles kept for GET /pairs/{instrument}/candles; 0 keeps none (the lab's backtests). */
  chartSize: number;
}

/** The tracker settings of a set of rules. */
export function trackerSettingsOf(rules: StrategyRules, timeframe: Timeframe, chartSize: number): TrackerSettings {
  return {
    timeframe,
    supertrend: { atrPeriod: rules.supertrendAtrPeriod, multiplier: rules.supertrendMultiplier },
    volumeProfileWindow: rules.volumeProfileWindow,
    fvgMaxAge: rules.fvgMaxAge,
    chartSize,
  };
}

/** The tracker settings of the strategy's config, on its TIMEFRAME unless another is given. */
export function trackerSettings(
  config: Pick<StrategyConfig, 'TIMEFRAME' | 'CHART_CANDLES'> & Parameters<typeof rulesOf>[0],
  timeframe: Timeframe = config.TIMEFRAME,
  chartSize: number = config.CHART_CANDLES,
): TrackerSettings {
  return trackerSettingsOf(rulesOf(config), timeframe, chartSize);
}

export interface IngestResult {
  /** The candles that were new (older or repeated ones are skipped), oldest first. */
  added: RuleCandle[];
  /** The Supertrend's ATR after each added candle, NaN while the indicators warm up (what a trailing stop reads). */
  atrs: number[];
  /** Candles refused as malformed (high < low, a price that is not finite, negative volume). */
  rejected: number;
}

/**
 * One monitored pair: its four streaming indicators, fed each closed candle exactly once (work
 * per candle is constant), the latest quote, its last signal, and a bounded chart history.
 */
export class PairTracker {
  readonly instrument: string;
  readonly symbol: string;
  /** Decimal places of the pair's prices (from the market's catalog). */
  digits: number;
  lastSignal: PairRecord['last_signal'] = null;
  private readonly settings: TrackerSettings;
  private readonly supertrend: Supertrend;
  private readonly stochRsi = new StochRsi();
  private readonly fvg: FairValueGaps;
  private readonly volumeProfile: VolumeProfile;
  /** Null with chartSize 0: no chart history is built at all. */
  private readonly chart: RingBuffer<ChartCandle> | null;
  private readonly candleMs: number;
  private lastCandle: RuleCandle | null = null;
  private snapshot: IndicatorSnapshot | null = null;
  /** The one snapshot object, updated in place by each candle (a backtest pushes millions). */
  private reusable: Snapshot | null = null;
  private quoteMid: number | null = null;
  /** When the newest data came (epoch ms), NaN before any: a number field, so that setting it allocates nothing. */
  private lastDataAt = Number.NaN;

  constructor(instrument: string, symbol: string, digits: number, settings: TrackerSettings) {
    this.instrument = instrument;
    this.symbol = symbol;
    this.digits = digits;
    this.settings = settings;
    this.supertrend = new Supertrend(settings.supertrend);
    this.fvg = new FairValueGaps({ maxAge: settings.fvgMaxAge });
    this.volumeProfile = new VolumeProfile({ window: settings.volumeProfileWindow });
    this.chart = settings.chartSize > 0 ? new RingBuffer(settings.chartSize) : null;
    this.candleMs = TIMEFRAME_SECONDS[settings.timeframe] * 1000;
  }

  /** Open time (epoch s) of the newest candle processed, or null before the first. */
  get lastCandleTime(): number | null {
    return this.lastCandle?.time ?? null;
  }

  /** The indicators after the newest candle, once all four are warmed up: one object, updated by each push (read it before the next). */
  get latest(): IndicatorSnapshot | null {
    return this.snapshot;
  }

  /** Mid of the latest quote, else the latest close; null before any data. */
  get currentPrice(): number | null {
    return this.quoteMid ?? this.lastCandle?.close ?? null;
  }

  get candleSeconds(): number {
    return TIMEFRAME_SECONDS[this.settings.timeframe];
  }

  onQuote(quote: SourceQuote, receivedAtMs: number): void {
    this.quoteMid = (quote.bid + quote.ask) / 2;
    this.lastDataAt = receivedAtMs;
  }

  /** Feeds closed candles (oldest first) through {@link push}, skipping those already seen. */
  ingest(candles: readonly RuleCandle[]): IngestResult {
    const added: RuleCandle[] = [];
    const atrs: number[] = [];
    let rejected = 0;
    for (const candle of candles) {
      if (this.lastCandle && candle.time <= this.lastCandle.time) continue;
      if (this.push(candle)) {
        added.push(candle);
        atrs.push(this.snapshot?.supertrend.atr ?? Number.NaN);
      } else {
        rejected++;
      }
    }
    return { added, atrs, rejected };
  }

  /**
   * Feeds one closed candle to the four indicators (the one path of the live engine and the lab);
   * false, and nothing changes, for a candle not newer than the last or malformed (high < low, a
   * price that is not finite, negative volume). `latest` then holds the indicators after it.
   */
  push(candle: RuleCandle): boolean {
    if ((this.lastCandle !== null && candle.time <= this.lastCandle.time) || !isValidCandle(candle)) return false;
    // No value objects per candle: the snapshot reads the indicators' current values, and the
    // volume profile's is computed only when read (the rule reads it on a candle with a trigger).
    const hasSupertrend = this.supertrend.advance(candle);
    const hasStochRsi = this.stochRsi.advance(candle);
    const hasFvg = this.fvg.advance(candle);
    const hasVolumeProfile = this.volumeProfile.advance(candle);
    this.lastCandle = candle;
    const endMs = candle.time * 1000 + this.candleMs;
    if (!(endMs <= this.lastDataAt)) this.lastDataAt = endMs;
    if (hasSupertrend && hasStochRsi && hasFvg && hasVolumeProfile) {
      const s = (this.reusable ??= new Snapshot(candle, this.supertrend, this.stochRsi, this.fvg, this.volumeProfile));
      s.candle = candle;
      this.snapshot = s;
    } else {
      this.snapshot = null;
    }
    if (this.chart) {
      this.chart.push(this.chartCandle(candle, this.supertrend.current, this.stochRsi.current, this.fvg.current, this.volumeProfile.current));
    }
    return true;
  }

  status(isRunning: boolean, nowMs: number, staleAfterMs: number): PairStatus {
    if (!isRunning) return 'stopped';
    if (!this.snapshot) return 'warming_up';
    if (!(nowMs - this.lastDataAt <= staleAfterMs)) return 'stale';
    return 'monitoring';
  }

  record(status: PairStatus): PairRecord {
    const s = this.snapshot;
    const price = this.currentPrice;
    return {
      instrument: this.instrument,
      symbol: this.symbol,
      status,
      current_price: price === null ? null : Number(price.toFixed(this.digits + 1)),
      supertrend: s ? { direction: s.supertrend.direction, value: Number(s.supertrend.value.toFixed(this.digits + 1)) } : null,
      stochrsi: s ? { k: Number(s.stochrsi.k.toFixed(2)), d: Number(s.stochrsi.d.toFixed(2)) } : null,
      last_signal: this.lastSignal,
      last_candle_time: this.lastCandle ? new Date(this.lastCandle.time * 1000).toISOString() : null,
      last_data_at: Number.isNaN(this.lastDataAt) ? null : new Date(this.lastDataAt).toISOString(),
    };
  }

  chartCandles(limit: number): ChartCandle[] {
    return this.chart?.last(limit) ?? [];
  }

  private chartCandle(
    candle: Candle,
    supertrend: Readonly<SupertrendValue> | null,
    stochrsi: Readonly<StochRsiValue> | null,
    fvg: Readonly<FvgValue> | null,
    volumeProfile: Readonly<VolumeProfileValue> | null,
  ): ChartCandle {
    const round = (v: number) => Number(v.toFixed(this.digits + 1));
    return {
      time: new Date(candle.time * 1000).toISOString(),
      open: candle.open,
      high: candle.high,
      low: candle.low,
      close: candle.close,
      volume: candle.volume,
      supertrend: supertrend && { direction: supertrend.direction, value: round(supertrend.value) },
      stochrsi: stochrsi && { k: Number(stochrsi.k.toFixed(2)), d: Number(stochrsi.d.toFixed(2)), signal: stochrsi.signal },
      fvg: fvg && { type: fvg.type, zone: fvg.zone ? [fvg.zone[0], fvg.zone[1]] : null },
      volume_profile: volumeProfile && { poc: round(volumeProfile.poc), vah: round(volumeProfile.vah), val: round(volumeProfile.val) },
    };
  }
}

/**
 * A tracker's indicators after its newest candle, read from the indicators themselves (their
 * current values; the volume profile's computed when first read). Made once all four have values.
 */
class Snapshot implements IndicatorSnapshot {
  constructor(
    public candle: RuleCandle,
    private readonly st: Supertrend,
    private readonly srsi: StochRsi,
    private readonly gaps: FairValueGaps,
    private readonly profile: VolumeProfile,
  ) {}

  get supertrend(): SupertrendValue {
    return this.st.current!;
  }

  get stochrsi(): StochRsiValue {
    return this.srsi.current!;
  }

  get fvg(): FvgValue {
    return this.gaps.current!;
  }

  get volumeProfile(): VolumeProfileValue {
    return this.profile.current!;
  }
}
