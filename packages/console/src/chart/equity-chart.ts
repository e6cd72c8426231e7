import type { EquityPoint } from '@fxdesk/schemas';
import { AreaSeries, BaselineSeries, createChart, type IChartApi, type ISeriesApi } from 'lightweight-charts';
import { COLORS } from './chart-data.js';
import { EQUITY_PRICE_FORMAT, equityLines } from './equity-data.js';

const DRAWDOWN_PANE_HEIGHT = 120;

/**
 * A backtest's equity, green above the initial balance and red below it, with its drawdown
 * (percent below the running high) in a pane underneath; drawn by lightweight-charts with the
 * pair chart's look.
 */
export class EquityChart {
  private readonly chart: IChartApi;
  private readonly equity: ISeriesApi<'Baseline'>;
  private readonly drawdown: ISeriesApi<'Area'>;

  constructor(container: HTMLElement) {
    this.chart = createChart(container, {
      autoSize: true,
      layout: { background: { color: '#11151c' }, textColor: '#c5cbd6', fontSize: 11, panes: { separatorColor: '#2a3140' } },
      grid: { vertLines: { color: '#1b212b' }, horzLines: { color: '#1b212b' } },
      // Up to 5,000 points fit in the width (bars thinner than the default half pixel), and stay in
      // view when the chart takes its size after the fit or the window resizes.
      timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#2a3140', minBarSpacing: 0.05, lockVisibleTimeRangeOnResize: true },
      rightPriceScale: { borderColor: '#2a3140' },
      localization: { dateFormat: 'yyyy-MM-dd' },
    });
    this.equity = this.chart.addSeries(BaselineSeries, {
      title: 'Equity',
      lineWidth: 2,
      topLineColor: COLORS.up,
      topFillColor1: 'rgba(38, 166, 154, 0.28)',
      topFillColor2: 'rgba(38, 166, 154, 0.04)',
      bottomLineColor: COLORS.down,
      bottomFillColor1: 'rgba(239, 83, 80, 0.04)',
      bottomFillColor2: 'rgba(239, 83, 80, 0.28)',
      priceFormat: EQUITY_PRICE_FORMAT,
    });
    this.drawdown = this.chart.addSeries(
      AreaSeries,
      {
        title: 'Drawdown %',
        lineWidth: 1,
        lineColor: COLORS.down,
        topColor: 'rgba(239, 83, 80, 0.05)',
        bottomColor: 'rgba(239, 83, 80, 0.4)',
        invertFilledArea: true,
        priceFormat: EQUITY_PRICE_FORMAT,
      },
      1,
    );
    // The deepest point's label and the series' title stay inside the pane.
    this.drawdown.priceScale().applyOptions({ scaleMargins: { top: 0.15, bottom: 0.25 } });
    this.chart.panes()[1]?.setHeight(DRAWDOWN_PANE_HEIGHT);
  }

  show(points: readonly EquityPoint[], initialBalance: number): void {
    const { equity, drawdown } = equityLines(points);
    this.equity.applyOptions({ baseValue: { type: 'price', price: initialBalance } });
    this.equity.setData(equity);
    this.drawdown.setData(drawdown);
    this.chart.timeScale().fitContent();
  }

  dispose(): void {
    this.chart.remove();
  }
}
