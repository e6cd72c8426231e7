/**
 * `npm run backtest -- --instruments EUR_USD,GBP_USD --timeframe M5 --from 2026-01-01 --to 2026-06-30`
 *
 * One backtest in this process, on the code the strategy service runs for POST /backtests: the
 * request is checked by the API's own schema and plan (same defaults from the strategy's
 * settings, same 5-year and candle limits), the candles come from the same source (the simulated
 * market for SIM_SEED, or the market-data service at MARKET_DATA_URL), and the runner is the
 * lab's. Progress goes to stderr (a bar on a terminal, a few lines otherwise), then the metrics
 * overall and per pair to stdout, or with --json the backtest's record as GET /backtests/{id}
 * gives its settings, counts and metrics. Bad arguments exit 2, a failed run 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, parseEnv } from 'node:util';
import { MarketDataClient } from '@fxdesk/client';
import { AppError, ConfigError, createLogger, loadConfig, type Env } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { BacktestRequestSchema, LAB_SETTING_NAMES, type Backtest, type BacktestRequest, type LabMetrics, type Timeframe } from '@fxdesk/schemas';
import { StrategyConfigSchema, type StrategyConfig } from '../services/strategy/src/config.js';
import { runBacktestJob } from '../services/strategy/src/lab/backtest.js';
import type { LabHistory } from '../services/strategy/src/lab/candles.js';
import { labHistoriesOf } from '../services/strategy/src/lab/sources.js';
import { DEFAULT_SPREAD_POINTS } from '@fxdesk/trading';
import { LabJobs, type LabRunner } from '../services/strategy/src/lab/jobs.js';
import { historyHoursOf } from '../services/strategy/src/lab/plan.js';
import { SqlLabStore } from '../services/strategy/src/lab/sql-store.js';

const USAGE = `usage: npm run backtest -- --from DATE --to DATE [options]

  --instruments EUR_USD,GBP_USD   pairs to trade (default: INSTRUMENTS)
  --timeframe M5                  M1 M5 M15 M30 H1 H4 D1 (default: TIMEFRAME)
  --from 2026-01-01               start of the window: a date (midnight UTC) or an RFC 3339 date-time
  --to 2026-06-30                 end of the window, excluded, not in the future
  --rules k=v,...                 rule settings over the strategy's own, e.g.
                                  supertrend_multiplier=2.5,min_confluence=2
                                  (${LAB_SETTING_NAMES.join(', ')})
  --balance 100000                initial balance in USD (default: PAPER_BALANCE)
  --leverage 30                   the account's leverage, 1-1000: an entry the free margin cannot hold is skipped (default: PAPER_LEVERAGE)
  --fills k=v,...                 the fill model, e.g. spread_points=12,slippage_points=1,
                                  commission_per_lot=7,lots=0.2 (sizing by risk is
                                  --rules risk_percent=1)
                                  (default: the candles' spread, no slippage or commission,
                                  TRADE_VOLUME lots)
  --source stored                 the candles: stored (the market-data service's candle store),
                                  venue (its feed's history) or simulated (SIM_SEED's market);
                                  default: stored when the store holds any of the pairs, else
                                  the desk's market
  --json                          print the result as JSON
  -h, --help                      this text

Settings come from the environment (and .env) as the strategy reads them: SIM_SEED for the
simulated market, or MARKET_DATA_URL (with MARKET_DATA_API_KEY) for the market-data service.
`;

/** A problem with the command line: printed with the usage, exit 2. */
class UsageError extends Error {}

/** Where each field of the API's request comes from on the command line. */
const OPTION_OF: Record<string, string> = {
  instruments: '--instruments',
  timeframe: '--timeframe',
  from: '--from',
  to: '--to',
  rules: '--rules',
  initial_balance: '--balance',
  leverage: '--leverage',
  fill_model: '--fills',
  source: '--source',
};

interface Cli {
  request: BacktestRequest;
  json: boolean;
}

function parseCli(argv: string[], config: StrategyConfig): Cli | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        instruments: { type: 'string' },
        timeframe: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        rules: { type: 'string' },
        balance: { type: 'string' },
        leverage: { type: 'string' },
        fills: { type: 'string' },
        source: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) return 'help';
  if (values.from === undefined) throw new UsageError('--from is required');
  if (values.to === undefined) throw new UsageError('--to is required');

  const body = {
    instruments: values.instruments === undefined ? config.INSTRUMENTS : list(values.instruments),
    timeframe: values.timeframe,
    from: values.from,
    to: values.to,
    rules: values.rules === undefined ? undefined : parseRules(values.rules),
    initial_balance: values.balance === undefined ? undefined : parseNumber('--balance', values.balance),
    leverage: values.leverage === undefined ? undefined : parseNumber('--leverage', values.leverage),
    fill_model: values.fills === undefined ? undefined : parseFills(values.fills),
    source: values.source,
  };
  const parsed = BacktestRequestSchema.safeParse(body);
  if (!parsed.success) {
    throw new UsageError(parsed.error.issues.map((issue) => `${where(issue.path.map(String))}: ${issue.message}`).join('\n'));
  }
  return { request: parsed.data, json: values.json };
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

function parseNumber(option: string, text: string): number {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim())) throw new UsageError(`${option}: expected a number, got "${text}"`);
  return Number(text);
}

/** `name=value,…` items whose names are among `names`, the values numbers. */
function parseItems(option: string, text: string, names: readonly string[], what: string): Record<string, number> {
  const values: Record<string, number> = {};
  for (const item of list(text)) {
    const eq = item.indexOf('=');
    const name = item.slice(0, eq).trim();
    if (eq < 0) throw new UsageError(`${option}: expected name=value items, got "${item}"`);
    if (!names.includes(name)) throw new UsageError(`${option}: unknown ${what} "${name}"; choose from ${names.join(', ')}`);
    if (name in values) throw new UsageError(`${option}: ${name} is given twice`);
    values[name] = parseNumber(`${option} ${name}`, item.slice(eq + 1));
  }
  return values;
}

const parseRules = (text: string) => parseItems('--rules', text, LAB_SETTING_NAMES, 'rule');

const FILL_NAMES = ['spread_points', 'slippage_points', 'commission_per_lot', 'lots', 'risk_percent'];

/** The fill model's settings, lots becoming its volume; sizing by risk is a rule (issue 24). */
function parseFills(text: string): Record<string, unknown> {
  const { lots, risk_percent, ...fills } = parseItems('--fills', text, FILL_NAMES, 'fill setting');
  if (risk_percent !== undefined) throw new UsageError('--fills: size by risk with --rules risk_percent=…');
  return lots === undefined ? fills : { ...fills, volume: { lots } };
}

/** A request field's path (`rules.min_confluence`, `body.instruments.1`) as the option it came from. */
function where(fieldPath: string[]): string {
  const [field, ...rest] = fieldPath[0] === 'body' ? fieldPath.slice(1) : fieldPath;
  const option = OPTION_OF[field ?? ''] ?? field ?? '(arguments)';
  const item = rest.filter((part) => part !== 'volume').join('.');
  return (field === 'rules' || field === 'fill_model') && item !== '' ? `${option} ${item}` : option;
}

/** The environment as `npm start` gives it to the strategy: .env at the root, the shell winning. */
function environment(): Env {
  const file = path.resolve(import.meta.dirname, '..', '.env');
  const fromFile = fs.existsSync(file) ? (parseEnv(fs.readFileSync(file, 'utf8')) as Env) : {};
  return { ...fromFile, ...process.env };
}

/**
 * Progress on stderr: on a terminal one bar redrawn in place; otherwise a line when a phase
 * starts and at each quarter, so a log stays short.
 */
class Progress {
  private phase = '';
  private shown = -1;
  private readonly isTty: boolean;

  constructor(private readonly out: NodeJS.WriteStream) {
    this.isTty = out.isTTY === true;
  }

  update(phase: string, fraction: number): void {
    const f = Math.min(1, Math.max(0, fraction));
    if (this.isTty) {
      const percent = Math.floor(f * 100);
      if (phase === this.phase && percent === this.shown) return;
      const width = 30;
      const filled = Math.round(f * width);
      this.out.write(`\r\x1b[2K${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${String(percent).padStart(3)}%  ${phase}`);
      this.shown = percent;
    } else {
      const quarter = Math.floor(f * 4);
      if (phase === this.phase && quarter === this.shown) return;
      this.out.write(`${phase}: ${quarter * 25}%\n`);
      this.shown = quarter;
    }
    this.phase = phase;
  }

  done(): void {
    if (this.isTty && this.phase !== '') this.out.write('\r\x1b[2K');
  }
}

const ROWS: Array<[label: string, value: (m: LabMetrics) => string]> = [
  ['net profit', (m) => money(m.net_profit)],
  ['trades', (m) => String(m.trade_count)],
  ['win rate', (m) => percent(m.win_rate)],
  ['profit factor', (m) => ratio(m.profit_factor)],
  ['expectancy', (m) => money(m.expectancy)],
  ['average R', (m) => ratio(m.average_r)],
  ['max drawdown', (m) => money(m.max_drawdown)],
  ['max drawdown %', (m) => `${m.max_drawdown_percent.toFixed(2)}%`],
  ['Sharpe', (m) => ratio(m.sharpe)],
  ['Sortino', (m) => ratio(m.sortino)],
  ['CAGR', (m) => (m.cagr === null ? '-' : percent(m.cagr))],
  ['exposure', (m) => percent(m.exposure)],
  ['longest losing streak', (m) => String(m.longest_losing_streak)],
  ['gross profit', (m) => money(m.gross_profit)],
  ['gross loss', (m) => money(m.gross_loss)],
  ['final equity', (m) => money(m.final_equity)],
];

const money = (n: number) => n.toFixed(2);
const percent = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;
const ratio = (n: number | null) => (n === null ? '-' : n.toFixed(2));

/** The metrics as a table: a row per metric, a column overall then one per pair. */
function metricsTable(metrics: NonNullable<Backtest['metrics']>, instruments: string[]): string {
  const columns: Array<[string, LabMetrics | undefined]> = [
    ['overall', metrics.overall],
    ...instruments.map((i) => [i, metrics.per_pair[i]] as [string, LabMetrics | undefined]),
  ];
  const cells = [['', ...columns.map(([name]) => name)], ...ROWS.map(([label, value]) => [label, ...columns.map(([, m]) => (m ? value(m) : '-'))])];
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((row) => row[c]!.length)));
  return cells.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

/** The skips by reason with a count (`: 3 max_open_trades, 1 cooldown`), or nothing. */
function skipsOf(backtest: Backtest): string {
  const counts = Object.entries(backtest.metrics?.skipped?.overall ?? {}).filter(([, n]) => n > 0);
  return counts.length === 0 ? '' : `: ${counts.map(([reason, n]) => `${n} ${reason}`).join(', ')}`;
}

/** What the backtest ran with and what it did, above the table. */
function summary(backtest: Backtest, elapsedMs: number): string {
  const { settings } = backtest;
  const rules = Object.entries(settings.rules)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  const fills = settings.fill_model;
  const riskPercent = settings.rules.risk_percent;
  const volume =
    riskPercent !== undefined
      ? `${riskPercent}% of the equity at risk a trade`
      : 'lots' in fills.volume
        ? `${fills.volume.lots} lots a trade`
        : `${fills.volume.risk_percent}% of the equity at risk a trade`;
  const spread = `the candles' spread (else ${fills.spread_points ?? DEFAULT_SPREAD_POINTS} points)`;
  return [
    `${settings.instruments.join(', ')}  ${settings.timeframe}  ${settings.from} → ${settings.to}`,
    `rules: ${rules}`,
    `balance ${settings.initial_balance} ${settings.account_currency}${settings.leverage === undefined ? '' : `, leverage ${settings.leverage}:1`}, ${volume}, ${spread}, slippage ${fills.slippage_points} points, commission ${fills.commission_per_lot} a lot`,
    `${backtest.candles ?? 0} candles, ${backtest.signals} signals (${backtest.skipped_signals} skipped${skipsOf(backtest)}), ${(elapsedMs / 1000).toFixed(1)} s`,
    ...(backtest.data ? [`data: ${backtest.data.source}, ${backtest.data.candles} candles, sha256 ${backtest.data.sha256}`] : []),
  ].join('\n');
}

function fail(message: string, code: number): never {
  process.stderr.write(`backtest: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let config: StrategyConfig;
  try {
    config = loadConfig(StrategyConfigSchema, environment());
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  let cli: Cli | 'help';
  try {
    cli = parseCli(process.argv.slice(2), config);
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\n\n${USAGE}`, 2);
    throw err;
  }
  if (cli === 'help') {
    process.stdout.write(USAGE);
    return;
  }

  const progress = new Progress(process.stderr);
  // The service's own lab, in this process: its histories, its plan, its candle loading, the
  // runner in this thread instead of its worker threads, results in a store that ends with the process.
  const marketData =
    config.MARKET_DATA_URL === undefined
      ? undefined
      : new MarketDataClient({ baseUrl: config.MARKET_DATA_URL, apiKey: config.MARKET_DATA_API_KEY, timeoutMs: config.DOWNSTREAM_TIMEOUT_MS });
  const histories = labHistoriesOf(config, marketData, systemClock);
  const shown = <T extends LabHistory>(base: T): T =>
    Object.assign(Object.create(base) as T, {
      candles: (symbol: string, timeframe: Timeframe, fromSec: number, toSec: number, onProgress?: (f: number) => void) =>
        base.candles(symbol, timeframe, fromSec, toSec, (f) => {
          progress.update(`loading ${symbol}`, f);
          onProgress?.(f);
        }),
    });
  const runner: LabRunner = {
    run: async (job, options = {}) =>
      runBacktestJob(job, {
        onProgress: (f) => {
          progress.update('backtest', f);
          options.onProgress?.(f);
        },
      }),
  };
  const jobs = new LabJobs({
    config,
    lab: {
      store: await SqlLabStore.open(),
      history: shown(histories.history),
      stored: histories.stored && shown(histories.stored),
      simulated: histories.simulated && shown(histories.simulated),
      hours: historyHoursOf(config),
      runner,
    },
    clock: systemClock,
    logger: createLogger({ name: 'backtest', level: 'silent' }),
  });

  const started = performance.now();
  let id: string;
  try {
    ({ id } = await jobs.submitBacktest(cli.request));
  } catch (err) {
    if (err instanceof AppError && err.details !== undefined) {
      fail(`${err.details.map((d) => `${where(d.path.split('.'))}: ${d.message}`).join('\n')}\n\n${USAGE}`, 2);
    }
    fail(err instanceof Error ? err.message : String(err), 1);
  }
  await jobs.whenIdle();
  progress.done();
  const backtest = await jobs.backtest(id);
  await jobs.close();
  await marketData?.close();
  if (backtest.status !== 'done' || backtest.metrics === null) fail(`the backtest ${backtest.status}: ${backtest.error?.message ?? 'no result'}`, 1);

  if (cli.json) process.stdout.write(`${JSON.stringify(backtest, null, 2)}\n`);
  else process.stdout.write(`${summary(backtest, performance.now() - started)}\n\n${metricsTable(backtest.metrics, backtest.settings.instruments)}\n`);
}

await main();
