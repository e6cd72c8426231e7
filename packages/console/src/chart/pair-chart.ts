import type { ChartCandle, OpenPosition, StrategySignal, Timeframe } from '@fxdesk/schemas';
import {
  CandlestickSeries,
  createChart,
  createSeriesMarkers,
  HistogramSeries,
  LineSeries,
  LineStyle,
  type CandlestickData,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { priceDigits } from '../format.js';
import {
  candleBars,
  COLORS,
  formingBar,
  fvgZones,
  latestProfile,
  pickedSignal,
  signalLevels,
  signalBarTime,
  signalMarkers,
  signalsOnChart,
  stochRsiLines,
  supertrendLine,
  toTime,
  tradeLines,
  tradeMarkers,
  tradesOnChart,
  volumeBars,
  type ChartTrade,
} from './chart-data.js';
import { ChartOverlays } from './overlays.js';

/** What the chart shows: a pair's closed candles on one timeframe, its signals, and a backtest's trades of it. */
export interface ChartInput {
  instrument: string;
  timeframe: Timeframe;
  candles: ChartCandle[];
  signals: StrategySignal[];
  selectedId: string | null;
  trades?: ChartTrade[];
  /** The picked trade (tradeKey), drawn bolder and labelled. */
  selectedTrade?: string | null;
  /** The pair's open positions at the venue: each one's open price, SL and TP on the price axis. */
  positions?: readonly OpenPosition[];
}

const STOCH_PANE_HEIGHT = 110;
/**
 * Room right of the newest bar: the price lines' titles (POC, Entry, Target…) are drawn at the
 * pane's right edge, and a marker's label is centred on its bar; both fit in it.
 */
const RIGHT_MARGIN_PX = 96;

/**
 * The pair chart, drawn by lightweight-charts: candles with volume, the Supertrend (coloured by
 * direction), fair value gaps, the volume profile's POC/VAH/VAL, signal markers with their
 * levels, a backtest's trades (entry and exit markers joined by a line), and the Stochastic RSI
 * in a pane below. `show` draws everything from the data; `tick` stretches the bar forming after
 * the newest closed candle; `reveal` scrolls to a span of time.
 */
export class PairChart {
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private readonly trend: ISeriesApi<'Line'>;
  private readonly k: ISeriesApi<'Line'>;
  private readonly d: ISeriesApi<'Line'>;
  private readonly markers: ISeriesMarkersPluginApi<Time>;
  private readonly overlays = new ChartOverlays();
  private priceLines: IPriceLine[] = [];
  private input: ChartInput | null = null;
  private forming: CandlestickData<Time> | null = null;
  private shownKey = '';
  /** The asked-for signal the view was last moved to (or opened on). */
  private revealedId: string | null = null;

  constructor(container: HTMLElement) {
    this.chart = createChart(container, {
      autoSize: true,
      layout: { background: { color: '#11151c' }, textColor: '#c5cbd6', fontSize: 11, panes: { separatorColor: '#2a3140' } },
      grid: { vertLines: { color: '#1b212b' }, horzLines: { color: '#1b212b' } },
      timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#2a3140', rightOffsetPixels: RIGHT_MARGIN_PX },
      rightPriceScale: { borderColor: '#2a3140' },
      localization: { dateFormat: 'yyyy-MM-dd' },
    });
    this.candles = this.chart.addSeries(CandlestickSeries, {
      upColor: COLORS.up,
      downColor: COLORS.down,
      borderVisible: false,
      wickUpColor: COLORS.up,
      wickDownColor: COLORS.down,
      title: '',
    });
    this.volume = this.chart.addSeries(HistogramSeries, {
      priceScaleId: 'volume',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    this.chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } });
    this.trend = this.chart.addSeries(LineSeries, { lineWidth: 2, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false });
    const oscillator = {
      lineWidth: 1 as const,
      priceLineVisible: false,
      priceFormat: { type: 'price' as const, precision: 1, minMove: 0.1 },
      // The oscillator lives on 0–100 whatever its recent swing.
      autoscaleInfoProvider: () => ({ priceRange: { minValue: 0, maxValue: 100 } }),
    };
    this.k = this.chart.addSeries(LineSeries, { ...oscillator, color: COLORS.k, title: '%K' }, 1);
    this.d = this.chart.addSeries(LineSeries, { ...oscillator, color: COLORS.d, title: '%D' }, 1);
    this.k.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.08 } });
    for (const price of [80, 20]) this.k.createPriceLine({ price, color: '#5b6475', lineStyle: LineStyle.Dashed, lineWidth: 1, axisLabelVisible: false });
    this.chart.panes()[1]?.setHeight(STOCH_PANE_HEIGHT);
    this.markers = createSeriesMarkers(this.candles, []);
    this.candles.attachPrimitive(this.overlays);
  }

  /** Draws `input` whole; the view is fitted when the pair or timeframe changed, else the trader's scroll is kept. */
  show(input: ChartInput): void {
    const key = `${input.instrument}/${input.timeframe}`;
    if (this.input && `${this.input.instrument}/${this.input.timeframe}` !== key) this.forming = null;
    this.input = input;
    const digits = priceDigits(input.instrument);
    const priceFormat = { type: 'price' as const, precision: digits, minMove: 10 ** -digits };
    this.candles.applyOptions({ priceFormat });
    this.trend.applyOptions({ priceFormat });

    const bars = candleBars(input.candles);
    const lastClosed = bars.at(-1);
    if (this.forming && lastClosed && this.forming.time <= lastClosed.time) this.forming = null;
    this.candles.setData(this.forming ? [...bars, this.forming] : bars);
    this.volume.setData(volumeBars(input.candles));
    this.trend.setData(supertrendLine(input.candles));
    const stoch = stochRsiLines(input.candles);
    this.k.setData(stoch.k);
    this.d.setData(stoch.d);

    const onChart = signalsOnChart(input.signals, input.candles, input.timeframe);
    const picked = pickedSignal(onChart, input.selectedId);
    const trades = tradesOnChart(input.trades ?? [], input.candles);
    const selectedTrade = input.selectedTrade ?? null;
    const markers = [...signalMarkers(onChart, input.timeframe, picked?.signal_id ?? null), ...tradeMarkers(trades, selectedTrade)];
    this.markers.setMarkers(markers.sort((a, b) => (a.time as number) - (b.time as number)));
    this.overlays.set(
      fvgZones(input.candles),
      signalLevels(onChart, input.candles, input.timeframe, picked?.signal_id ?? null),
      tradeLines(trades, selectedTrade),
      picked ? signalBarTime(picked, input.timeframe) : null,
    );
    this.drawPriceLines(input, picked);

    // A new pair or timeframe shows every candle read (an asked-for signal among them); a signal
    // asked for later is scrolled to when it is out of view.
    const asked = picked && picked.signal_id === input.selectedId ? picked : null;
    if (key !== this.shownKey && bars.length > 0) {
      this.shownKey = key;
      this.revealedId = asked?.signal_id ?? null;
      this.chart.timeScale().fitContent();
    } else if (asked && asked.signal_id !== this.revealedId) {
      this.revealedId = asked.signal_id;
      this.scrollTo(signalBarTime(asked, input.timeframe), bars);
    }
  }

  /** A live price at `atMs`: the forming bar after the newest closed candle moves with it. */
  tick(price: number, atMs: number): void {
    if (!this.input) return;
    const bar = formingBar(this.input.candles, this.forming, price, atMs, this.input.timeframe);
    if (!bar) return;
    this.forming = bar;
    this.candles.update(bar);
  }

  /** Scrolls and zooms to show from `fromIso` to `toIso`, with `marginBars` on each side. */
  reveal(fromIso: string, toIso: string, marginBars = 30): void {
    const bars = this.input ? candleBars(this.input.candles) : [];
    const first = bars.findIndex((b) => (b.time as number) >= toTime(fromIso));
    const last = bars.findIndex((b) => (b.time as number) >= toTime(toIso));
    if (first < 0 || last < 0) return;
    this.chart.timeScale().setVisibleLogicalRange({ from: first - marginBars, to: last + marginBars });
  }

  dispose(): void {
    this.chart.remove();
  }

  /** Centres the bar opening at `time` unless it is in view already (left of the price lines' titles). */
  private scrollTo(time: UTCTimestamp, bars: readonly CandlestickData<Time>[]): void {
    const timeScale = this.chart.timeScale();
    const x = timeScale.timeToCoordinate(time);
    if (x !== null && x >= 0 && x <= timeScale.width() - RIGHT_MARGIN_PX) return;
    const index = bars.findIndex((b) => (b.time as number) >= time);
    const range = timeScale.getVisibleLogicalRange();
    if (index < 0 || !range) return;
    const half = (range.to - range.from) / 2;
    timeScale.setVisibleLogicalRange({ from: index - half, to: index + half });
  }

  /** POC, VAH and VAL of the latest profile, the picked signal's entry, stop and target, and the open positions' prices and stops, on the price axis. */
  private drawPriceLines(input: ChartInput, picked: StrategySignal | null): void {
    for (const line of this.priceLines) this.candles.removePriceLine(line);
    this.priceLines = [];
    const add = (price: number, title: string, color: string, lineStyle: LineStyle) =>
      this.priceLines.push(this.candles.createPriceLine({ price, title, color, lineStyle, lineWidth: 1, axisLabelVisible: true }));
    const profile = latestProfile(input.candles);
    if (profile) {
      add(profile.poc, 'POC', COLORS.poc, LineStyle.Solid);
      add(profile.vah, 'VAH', COLORS.valueArea, LineStyle.Dotted);
      add(profile.val, 'VAL', COLORS.valueArea, LineStyle.Dotted);
    }
    if (picked) {
      add(picked.entry_price, 'Entry', COLORS.entry, LineStyle.Dashed);
      add(picked.stop_loss, 'Stop', COLORS.stop, LineStyle.Dashed);
      add(picked.take_profit, 'Target', COLORS.target, LineStyle.Dashed);
    }
    for (const position of input.positions ?? []) {
      add(Number(position.open_price), `#${position.ticket}`, COLORS.entry, LineStyle.Solid);
      if (position.sl !== null) add(Number(position.sl), `SL #${position.ticket}`, COLORS.stop, LineStyle.Solid);
      if (position.tp !== null) add(Number(position.tp), `TP #${position.ticket}`, COLORS.target, LineStyle.Solid);
    }
  }
}
