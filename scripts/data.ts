/**
 * `npm run data -- import FILE --symbol EUR_USD [--format mt5|mt4|histdata|dukascopy|csv] [--tz +2] [--timeframe M1] [--source file]`
 * `npm run data -- coverage [--symbol EUR_USD] [--spike-atr 10]`
 *
 * The market-data service's candle store, from the command line: the same store the service
 * serves GET /v1/market-data/stored-candles from (DATA_DIR/market-data.db, or PostgreSQL with
 * DATABASE_URL, read from the environment and .env as the service reads them). An import
 * prints the rows read, imported and skipped, and the first rejects by line number; it
 * commits whole or not at all. Coverage prints each series' range, its gaps beyond the
 * weekend and its suspicious bars (flat, spikes beyond N ATR). Bad arguments exit 2, a failed import 1.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '@fxdesk/core';
import { BrokerSymbolSchema, TIMEFRAMES, type Timeframe } from '@fxdesk/schemas';
import { CandleStoreConfigSchema } from '../services/market-data/src/config.js';
import { openCandleStore } from '../services/market-data/src/deps.js';
import { FORMATS, type FormatName } from '../services/market-data/src/import/formats.js';
import { ImportError, importFile, type ImportReport } from '../services/market-data/src/import/importer.js';
import { coverageOf, GAP_MINUTES, type SeriesCoverage } from '../services/market-data/src/store/coverage.js';
import { ATR_PERIOD, SPIKE_ATR, SUSPICION_REASONS, type SuspiciousBar, type SuspicionReason } from '../services/market-data/src/store/suspicious-bars.js';
import { loadBaseEnv } from './launcher.js';

const USAGE = `usage: npm run data -- import FILE --symbol EUR_USD [options]
       npm run data -- coverage [--symbol EUR_USD] [--spike-atr ${SPIKE_ATR}]

import: candles from a file into the market-data store (UTC; re-importing adds nothing)
  --symbol EUR_USD        the symbol the candles are stored under (required)
  --format NAME           ${FORMATS.join(', ')} (default: detected from the first line);
                          any of them gzipped (.gz, detected by its bytes)
  --tz ZONE               the server time of mt5, mt4 and zone-less csv times: +2, -05:00,
                          or an IANA zone such as Europe/Athens (DST-aware); default UTC.
                          histdata is always EST without DST (UTC-5), dukascopy GMT
  --timeframe M1          the timeframe the file holds: ${TIMEFRAMES.join(' ')} (default M1)
  --source file           where the candles came from, part of their key (default file)

coverage: per symbol, timeframe and source, the range held and the gaps: missing market
  time longer than ${GAP_MINUTES} minutes (or one bar), the weekend (Friday to Sunday 17:00 New York) left out;
  and the suspicious bars, counted and the first ones listed: flat (open = high = low = close)
  in market hours, a range or an open's gap from the adjacent bar's close beyond N ATR(${ATR_PERIOD})
  of the bars before, a high or low that does not bound the open and close
  --symbol EUR_USD        only this symbol
  --spike-atr N           the N of a spike (default ${SPIKE_ATR})

The store is DATA_DIR/market-data.db (default ./data), or PostgreSQL with DATABASE_URL.
`;

class UsageError extends Error {}

interface ImportCommand {
  command: 'import';
  file: string;
  symbol: string;
  format?: FormatName;
  timeZone?: string;
  timeframe: Timeframe;
  source: string;
}

interface CoverageCommand {
  command: 'coverage';
  symbol?: string;
  spikeAtr: number;
}

function parseCli(argv: string[]): ImportCommand | CoverageCommand | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        symbol: { type: 'string' },
        format: { type: 'string' },
        tz: { type: 'string' },
        timeframe: { type: 'string' },
        source: { type: 'string' },
        'spike-atr': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, ...files] = positionals;
  const symbol = values.symbol === undefined ? undefined : checked(BrokerSymbolSchema.safeParse(values.symbol).success, values.symbol, '--symbol');
  if (command === 'coverage') {
    if (files.length > 0 || values.format || values.tz || values.timeframe || values.source)
      throw new UsageError('coverage takes only --symbol and --spike-atr');
    const spikeAtr = values['spike-atr'] ?? String(SPIKE_ATR);
    return { command, symbol, spikeAtr: Number(checked(/^\d+(\.\d+)?$/.test(spikeAtr) && Number(spikeAtr) > 0, spikeAtr, '--spike-atr')) };
  }
  if (values['spike-atr'] !== undefined) throw new UsageError('--spike-atr is an option of coverage');
  if (command !== 'import') throw new UsageError(command === undefined ? 'name a command: import or coverage' : `unknown command ${command}`);
  if (files.length !== 1) throw new UsageError('import takes one FILE');
  if (symbol === undefined) throw new UsageError('import needs --symbol');
  const format = values.format === undefined ? undefined : (checked(FORMATS.includes(values.format as FormatName), values.format, '--format') as FormatName);
  const timeframe = checked(TIMEFRAMES.includes((values.timeframe ?? 'M1') as Timeframe), values.timeframe ?? 'M1', '--timeframe') as Timeframe;
  const source = checked(/^[A-Za-z0-9._-]{1,64}$/.test(values.source ?? 'file'), values.source ?? 'file', '--source');
  return { command, file: files[0] as string, symbol, format, timeZone: values.tz, timeframe, source };
}

function checked(isValid: boolean, value: string, option: string): string {
  if (!isValid) throw new UsageError(`${option} ${value} is not valid`);
  return value;
}

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z'));

function printImport(command: ImportCommand, report: ImportReport, seconds: number): void {
  const { malformed, outOfOrder, duplicate } = report.skipped;
  const skipped = malformed + outOfOrder + duplicate;
  const lines = [
    `${command.file}: ${report.format}, times read as ${report.timeZone}, into ${command.symbol} ${command.timeframe} from ${command.source}`,
    `rows read     ${report.rowsRead}`,
    `imported      ${report.imported}${report.alreadyHeld > 0 ? ` (${report.alreadyHeld} already held)` : ''}`,
    `skipped       ${skipped}${skipped > 0 ? ` (malformed ${malformed}, out of order ${outOfOrder}, duplicate ${duplicate})` : ''}`,
    `range         ${iso(report.firstMs)} to ${iso(report.lastMs)}`,
    `took          ${seconds.toFixed(1)} s (${Math.round(report.rowsRead / Math.max(seconds, 1e-3))} rows/s)`,
  ];
  for (const reject of report.rejects) lines.push(`  line ${reject.line}: ${reject.reason}`);
  if (skipped > report.rejects.length) lines.push(`  … and ${skipped - report.rejects.length} more`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

const REASON_NAMES: Record<SuspicionReason, string> = {
  zero_range: 'zero range',
  range_spike: 'range spike',
  gap_spike: 'gap spike',
  unbounded: 'high/low not bounding',
};

function whyOf(bar: SuspiciousBar, reason: SuspicionReason): string {
  const atrs = (n: number | null) => `${(n ?? 0).toFixed(1)} ATR`;
  if (reason === 'range_spike') return `range spike: ${atrs(bar.rangeAtrs)}`;
  if (reason === 'gap_spike') return `gap spike: open ${atrs(bar.gapAtrs)} from the close before`;
  if (reason === 'zero_range') return 'zero range: open = high = low = close';
  return 'high/low do not bound the open and close';
}

function printCoverage(series: SeriesCoverage[]): void {
  if (series.length === 0) {
    process.stdout.write('the store holds no candles\n');
    return;
  }
  const lines: string[] = [];
  for (const s of series) {
    const { suspicious } = s;
    lines.push(`${s.symbol} ${s.timeframe} ${s.source}: ${s.candles} candles, ${iso(s.firstMs)} to ${iso(s.lastMs)}, ${s.gaps.length} gaps`);
    for (const gap of s.gaps) lines.push(`  ${iso(gap.fromMs)} to ${iso(gap.toMs)}  ${gap.openMinutes} market minutes`);
    const counts = SUSPICION_REASONS.map((r) => `${REASON_NAMES[r]} ${suspicious.byReason[r]}`).join(', ');
    lines.push(`  ${suspicious.count} suspicious bars${suspicious.count > 0 ? ` (${counts})` : ''}`);
    for (const bar of suspicious.first) lines.push(`  ${iso(bar.time)}  ${bar.reasons.map((r) => whyOf(bar, r)).join('; ')}`);
    if (suspicious.count > suspicious.first.length) lines.push(`  … and ${suspicious.count - suspicious.first.length} more`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<number> {
  let command;
  let config;
  try {
    command = parseCli(process.argv.slice(2));
    if (command === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    config = loadConfig(CandleStoreConfigSchema, loadBaseEnv());
  } catch (err) {
    if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${USAGE}`);
    else if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else throw err;
    return 2;
  }
  const store = await openCandleStore(config);
  try {
    if (command.command === 'coverage') {
      printCoverage(await coverageOf(store, command.symbol, { spikeAtr: command.spikeAtr }));
      return 0;
    }
    const started = performance.now();
    const report = await importFile(store, {
      file: command.file,
      symbol: command.symbol,
      source: command.source,
      timeframe: command.timeframe,
      format: command.format,
      timeZone: command.timeZone,
    });
    printImport(command, report, (performance.now() - started) / 1000);
    return 0;
  } catch (err) {
    const reason = err instanceof ImportError ? err.message : `${(err as Error).message}; nothing was imported`;
    process.stderr.write(`import failed: ${reason}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

process.exitCode = await main();
