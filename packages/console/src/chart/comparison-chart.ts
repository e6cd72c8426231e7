import { createChart, LineSeries, LineType, type IChartApi, type ISeriesApi } from 'lightweight-charts';
import type { PnlLine } from './comparison-data.js';
import { EQUITY_PRICE_FORMAT } from './equity-data.js';

/** The two curves' colours (the legend's swatches in styles.css have them too). */
export const COMPARISON_COLORS = { journal: '#f6a343', backtest: '#b388ff' } as const;

/**
 * The journal's P/L beside a backtest's over the same period, on one price scale: the journal
 * as steps (it moves only when a trade closes), the backtest as a line (marked at each candle).
 */
export class ComparisonChart {
  private readonly chart: IChartApi;
  private readonly journal: ISeriesApi<'Line'>;
  private readonly backtest: ISeriesApi<'Line'>;

  constructor(container: HTMLElement) {
    this.chart = createChart(container, {
      autoSize: true,
      layout: { background: { color: '#11151c' }, textColor: '#c5cbd6', fontSize: 11 },
      grid: { vertLines: { color: '#1b212b' }, horzLines: { color: '#1b212b' } },
      timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#2a3140', minBarSpacing: 0.05, lockVisibleTimeRangeOnResize: true },
      rightPriceScale: { borderColor: '#2a3140' },
      localization: { dateFormat: 'yyyy-MM-dd' },
    });
    this.backtest = this.chart.addSeries(LineSeries, { title: 'Backtest', color: COMPARISON_COLORS.backtest, lineWidth: 2, priceFormat: EQUITY_PRICE_FORMAT });
    this.journal = this.chart.addSeries(LineSeries, {
      title: 'Journal',
      color: COMPARISON_COLORS.journal,
      lineWidth: 2,
      lineType: LineType.WithSteps,
      priceFormat: EQUITY_PRICE_FORMAT,
    });
  }

  show(journal: PnlLine, backtest: PnlLine | null): void {
    this.journal.setData(journal);
    this.backtest.setData(backtest ?? []);
    this.chart.timeScale().fitContent();
  }

  dispose(): void {
    this.chart.remove();
  }
}
