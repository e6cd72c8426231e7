import type {
  AutoscaleInfo,
  IPrimitivePaneRenderer,
  IPrimitivePaneView,
  ISeriesApi,
  ISeriesPrimitive,
  PrimitivePaneViewZOrder,
  SeriesAttachedParameter,
  SeriesType,
  Time,
} from 'lightweight-charts';
import { COLORS, type SignalLevels, type TradeLine, type Zone } from './chart-data.js';

type Target = Parameters<IPrimitivePaneRenderer['draw']>[0];
type Attached = SeriesAttachedParameter<Time, SeriesType>;

/** A horizontal extent in pixels; a time off the chart's data maps to null. */
function span(attached: Attached, from: Time, to: Time | null, width: number): [number, number] | null {
  const timeScale = attached.chart.timeScale();
  const x1 = timeScale.timeToCoordinate(from);
  const x2 = to === null ? width : timeScale.timeToCoordinate(to);
  if (x1 === null || x2 === null) return null;
  return [Math.min(x1, x2), Math.max(x1, x2)];
}

class View implements IPrimitivePaneView {
  constructor(
    private readonly order: PrimitivePaneViewZOrder,
    private readonly draw: (target: Target) => void,
  ) {}

  zOrder(): PrimitivePaneViewZOrder {
    return this.order;
  }

  renderer(): IPrimitivePaneRenderer {
    return { draw: this.draw };
  }
}

/**
 * What lightweight-charts has no series for, drawn on the candle series' pane: the picked
 * signal's bar as a lighter column and fair value gaps as shaded zones behind the candles, each
 * signal's entry, stop and target as segments from its bar (the picked signal's bolder), and each
 * backtest trade as a line from its entry to its exit.
 */
export class ChartOverlays implements ISeriesPrimitive<Time> {
  private param: Attached | null = null;
  private zones: Zone[] = [];
  private levels: SignalLevels[] = [];
  private trades: TradeLine[] = [];
  private highlight: Time | null = null;
  private readonly views: readonly IPrimitivePaneView[] = [
    new View('bottom', (t) => this.drawHighlight(t)),
    new View('bottom', (t) => this.drawZones(t)),
    new View('normal', (t) => this.drawLevels(t)),
    new View('normal', (t) => this.drawTrades(t)),
  ];

  attached(param: Attached): void {
    this.param = param;
  }

  detached(): void {
    this.param = null;
  }

  paneViews(): readonly IPrimitivePaneView[] {
    return this.views;
  }

  /** The picked signal's stop and target stay in view even when price has not reached them. */
  autoscaleInfo(): AutoscaleInfo | null {
    const picked = this.levels.filter((l) => l.selected);
    if (picked.length === 0) return null;
    const prices = picked.flatMap((l) => [l.entry, l.stop, l.target]);
    return { priceRange: { minValue: Math.min(...prices), maxValue: Math.max(...prices) } };
  }

  /** `highlight`: the bar (open time) of the picked signal, shaded from the top of the pane to its bottom. */
  set(zones: Zone[], levels: SignalLevels[], trades: TradeLine[], highlight: Time | null = null): void {
    this.zones = zones;
    this.levels = levels;
    this.trades = trades;
    this.highlight = highlight;
    this.param?.requestUpdate();
  }

  private series(): ISeriesApi<SeriesType, Time> | null {
    return this.param?.series ?? null;
  }

  private drawHighlight(target: Target): void {
    const attached = this.param;
    if (!attached || this.highlight === null) return;
    const timeScale = attached.chart.timeScale();
    const x = timeScale.timeToCoordinate(this.highlight);
    if (x === null) return;
    const width = Math.max(3, timeScale.options().barSpacing);
    target.useMediaCoordinateSpace(({ context, mediaSize }) => {
      context.fillStyle = COLORS.highlight;
      context.fillRect(Math.round(x - width / 2), 0, Math.round(width), mediaSize.height);
    });
  }

  private drawZones(target: Target): void {
    const attached = this.param;
    const series = this.series();
    if (!attached || !series) return;
    target.useMediaCoordinateSpace(({ context, mediaSize }) => {
      for (const zone of this.zones) {
        const x = span(attached, zone.from, zone.to, mediaSize.width);
        const top = series.priceToCoordinate(zone.high);
        const bottom = series.priceToCoordinate(zone.low);
        if (!x || top === null || bottom === null) continue;
        context.fillStyle = zone.type === 'bullish' ? COLORS.bullishZone : COLORS.bearishZone;
        context.fillRect(x[0], Math.min(top, bottom), Math.max(1, x[1] - x[0]), Math.max(1, Math.abs(bottom - top)));
      }
    });
  }

  private drawLevels(target: Target): void {
    const attached = this.param;
    const series = this.series();
    if (!attached || !series) return;
    target.useMediaCoordinateSpace(({ context, mediaSize }) => {
      for (const level of this.levels) {
        const x = span(attached, level.from, level.to, mediaSize.width);
        if (!x) continue;
        context.lineWidth = level.selected ? 2 : 1;
        context.setLineDash(level.selected ? [] : [4, 3]);
        for (const [price, color] of [
          [level.entry, COLORS.entry],
          [level.stop, COLORS.stop],
          [level.target, COLORS.target],
        ] as const) {
          const y = series.priceToCoordinate(price);
          if (y === null) continue;
          context.strokeStyle = color;
          context.beginPath();
          context.moveTo(x[0], Math.round(y) + 0.5);
          context.lineTo(x[1], Math.round(y) + 0.5);
          context.stroke();
        }
      }
      context.setLineDash([]);
    });
  }

  private drawTrades(target: Target): void {
    const attached = this.param;
    const series = this.series();
    if (!attached || !series) return;
    const timeScale = attached.chart.timeScale();
    target.useMediaCoordinateSpace(({ context }) => {
      for (const trade of this.trades) {
        const x1 = timeScale.timeToCoordinate(trade.from);
        const x2 = timeScale.timeToCoordinate(trade.to);
        const y1 = series.priceToCoordinate(trade.entry);
        const y2 = series.priceToCoordinate(trade.exit);
        if (x1 === null || x2 === null || y1 === null || y2 === null) continue;
        context.lineWidth = trade.selected ? 2 : 1;
        context.setLineDash(trade.selected ? [] : [5, 3]);
        context.strokeStyle = trade.isWin ? COLORS.win : COLORS.loss;
        context.beginPath();
        context.moveTo(x1, y1);
        context.lineTo(x2, y2);
        context.stroke();
      }
      context.setLineDash([]);
    });
  }
}
