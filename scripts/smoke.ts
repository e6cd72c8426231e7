/**
 * `npm run smoke -- --venue oanda|ctrader|metaapi [--symbol EURUSD] [--live]`
 *
 * One order on the user's own venue account, end to end, before the desk trades it: the venue's
 * settings as every service reads them (the environment and `.env`), its adapters as the
 * services build them (`openVenue`), and the market order the execution service would send for
 * a signal of the symbol's minimum volume, without stops; then the position found, closed and
 * gone. Each step prints one line as it happens, with what the venue answered. A live
 * (real-money) account is refused before any order unless `--live` is given. Bad arguments,
 * missing or invalid settings and a refused live account exit 2, a failed step 1, naming the step
 * and, once the order may have filled, the ticket of the position that may be left open.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  BrokerError,
  ctraderSettings,
  describeVenue,
  isRealVenue,
  metaApiSettings,
  oandaSettings,
  openVenue,
  outcomeOfRetcode,
  requireVenueSettings,
  retcodeName,
  VenueSettingsSchema,
  type AccountSummary,
  type CountedTerminal,
  type Quote,
  type RealVenue,
  type SymbolInfo,
  type TradeResult,
  type VenueConnection,
  type VenueSettings,
} from '@fxdesk/broker';
import { ConfigError, loadConfig, type Env } from '@fxdesk/core';
import { systemClock } from '@fxdesk/primitives';
import { SignalSubmissionSchema } from '@fxdesk/schemas';
import { buildTradeRequest } from '../services/execution/src/trade-request.js';
import { loadBaseEnv } from './launcher.js';

const USAGE = `usage: npm run smoke -- --venue oanda|ctrader|metaapi [--symbol EURUSD] [--live]

Places and closes one market order of the symbol's minimum volume on your own account at the
venue, printing each step: the settings, the account and whether it is practice/demo or live
money, the symbol's volume terms and price, the fill, the close and its realised P/L.

  --venue oanda     oanda, ctrader or metaapi
  --symbol EURUSD   the symbol to trade (default EURUSD)
  --live            trade a live (real-money) account; refused without it
  -h, --help        this text

Settings come from the environment (and .env) as the services read them: OANDA_*, CTRADER_* or
METAAPI_* (see .env.example).
`;

/** The smoke order's magic number, not the execution service's (880001): the desk never takes it for one of its own. */
const SMOKE_MAGIC = 880_025;
/** The execution service's default MAX_DEVIATION_POINTS and MAXIMUM_VOLUME. */
const LIMITS = { maxDeviationPoints: 50, maximumVolume: '10', magic: SMOKE_MAGIC };
/** How long the venue's connections may hold the process open once closed. */
const EXIT_GRACE_MS = 5_000;

const SETTINGS_OF: Record<RealVenue, Record<string, unknown>> = { oanda: oandaSettings, ctrader: ctraderSettings, metaapi: metaApiSettings };

/** A problem with the command line, the settings or the account: one line, exit 2, no order sent. */
class Refusal extends Error {}

/** A step that failed: exit 1. */
class StepFailure extends Error {
  constructor(
    readonly step: string,
    message: string,
  ) {
    super(message);
  }
}

interface Cli {
  venue: RealVenue;
  symbol: string;
  isLiveAllowed: boolean;
}

function parseCli(argv: string[]): Cli | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        venue: { type: 'string' },
        symbol: { type: 'string', default: 'EURUSD' },
        live: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new Refusal(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
  }
  if (values.help) return 'help';
  if (values.venue === undefined || !isRealVenue(values.venue)) {
    throw new Refusal(`--venue ${values.venue === undefined ? 'is required' : `"${values.venue}" is no venue`}: choose oanda, ctrader or metaapi\n\n${USAGE}`);
  }
  return { venue: values.venue, symbol: values.symbol, isLiveAllowed: values.live };
}

/** The venue's settings from `env`, checked as a service checks them; the other venues' are left out. */
function settingsOf(venue: RealVenue, env: Env): VenueSettings {
  const own = Object.fromEntries(Object.keys(SETTINGS_OF[venue]).map((name) => [name, env[name]]));
  try {
    return loadConfig(
      VenueSettingsSchema.superRefine((settings, ctx) => requireVenueSettings(venue, settings, ctx)),
      own,
    );
  } catch (err) {
    if (err instanceof ConfigError) throw new Refusal(`the ${venue} settings (environment and .env): ${err.message}`);
    throw err;
  }
}

const say = (step: string, text: string) => process.stdout.write(`${`${step}:`.padEnd(12)}${text}\n`);

/** `smoke-20261202T195912Z`: the order's client id (its comment), unique to the second, within MetaApi's 26 characters. */
function smokeId(now: number): string {
  return `smoke-${new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}`;
}

/** A position the smoke order may have opened, for the warning when a later step fails. */
interface MaybeOpen {
  comment: string;
  ticket: string | null;
}

/** One run: the command line, the venue, the order's comment, and the position while one may be open. */
interface Smoke {
  cli: Cli;
  connection: VenueConnection;
  terminal: CountedTerminal;
  startedAt: number;
  comment: string;
  open?: MaybeOpen;
}

/** Connects, reads the account and its environment; a live one is refused without --live. */
async function checkAccount(smoke: Smoke): Promise<AccountSummary> {
  const { cli, connection } = smoke;
  await run('account', () => smoke.terminal.connect());
  const account = await run('account', () => connection.accountReader().summary());
  const environment = await run('account', () => connection.environment());
  say(
    'account',
    `${account.id}: balance ${account.balance} ${account.currency}, ${account.openTradeCount} open trades; ${environment.name} (${environment.source})`,
  );
  if (environment.isLive && !cli.isLiveAllowed) {
    throw new Refusal(`refused: the ${cli.venue} account ${account.id} is live, real money (${environment.source}); run with --live to trade it`);
  }
  if (environment.isLive) say('account', 'LIVE: this order trades real money (--live)');
  return account;
}

async function readTerms(smoke: Smoke): Promise<{ info: SymbolInfo; quote: Quote }> {
  const { terminal, cli } = smoke;
  const info = await run('terms', () => terminal.symbolInfo(cli.symbol));
  if (!info) throw new StepFailure('terms', `the ${cli.venue} account lists no symbol ${cli.symbol}`);
  const quote = await run('terms', () => terminal.tick(cli.symbol));
  if (!quote) throw new StepFailure('terms', `no price of ${cli.symbol} yet (is its market open?)`);
  say('terms', `${cli.symbol}: volume ${info.volumeMin} to ${info.volumeMax} lots, step ${info.volumeStep}; bid ${quote.bid} ask ${quote.ask}`);
  return { info, quote };
}

/** A market buy of the minimum volume, without stops, built as the execution service builds a signal's; answers the position's ticket. */
async function placeOrder(smoke: Smoke, info: SymbolInfo, quote: Quote): Promise<string> {
  const { terminal, cli, comment } = smoke;
  const signal = SignalSubmissionSchema.parse({
    signal_id: randomUUID(),
    occurred_at: new Date(smoke.startedAt).toISOString(),
    execution_type: 'market',
    symbol: cli.symbol,
    direction: 'buy',
    volume: info.volumeMin,
    source: 'smoke',
  });
  const request = await run('order', async () => buildTradeRequest(signal, info, quote, LIMITS, comment));
  const check = await run('order', () => terminal.orderCheck(request));
  if (check.retcode !== 0) {
    throw new StepFailure('order', `the venue's pre-check refused the order: ${retcodeName(check.retcode)} (${check.retcode}) ${check.comment}`);
  }
  const open: MaybeOpen = { comment, ticket: null };
  smoke.open = open;
  const sent = await run('order', () => terminal.orderSend(request));
  const outcome = outcomeOfRetcode(sent.retcode);
  // A refusal opened nothing; any other answer but a fill may have.
  if (outcome === 'rejected') smoke.open = undefined;
  if (outcome !== 'filled' && outcome !== 'partially_filled') throw new StepFailure('order', `the venue answered ${answerOf(sent)}`);
  open.ticket = sent.position;
  say(
    'order',
    `bought ${sent.volume} ${cli.symbol} at ${sent.price} as ${comment}: ${answerOf(sent)}, order ${sent.order}, deal ${sent.deal}, position ${sent.position}`,
  );
  if (sent.position === null) throw new StepFailure('close', 'the fill names no position');
  return sent.position;
}

/** Finds the position, closes it whole and checks it is gone. */
async function closePosition(smoke: Smoke, ticket: string, currency: string): Promise<void> {
  const { terminal, cli } = smoke;
  const position = (await run('close', () => terminal.positions({ symbol: cli.symbol }))).find((p) => p.ticket === ticket);
  if (!position) throw new StepFailure('close', `position ${ticket} is not among the open positions of ${cli.symbol}`);
  const closed = await run('close', () =>
    terminal.closePosition({ position: ticket, volume: position.volume, deviation: LIMITS.maxDeviationPoints, magic: SMOKE_MAGIC, comment: smoke.comment }),
  );
  if (outcomeOfRetcode(closed.retcode) !== 'filled') throw new StepFailure('close', `closing position ${ticket}: the venue answered ${answerOf(closed)}`);
  if ((await run('close', () => terminal.positions({ symbol: cli.symbol }))).some((p) => p.ticket === ticket)) {
    throw new StepFailure('close', `position ${ticket} is still open after its close (${answerOf(closed)})`);
  }
  smoke.open = undefined;
  const pl = await realisedPl(terminal, ticket, smoke.startedAt);
  say(
    'close',
    `sold ${closed.volume} ${cli.symbol} at ${closed.price}: ${answerOf(closed)}, deal ${closed.deal}; position ${ticket} is gone; realised P/L ${pl === null ? 'not given' : `${pl} ${currency}`}`,
  );
}

/** A call of `step`: a venue's failure becomes the step's. */
async function run<T>(step: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof Refusal || err instanceof StepFailure) throw err;
    const detail = err instanceof BrokerError ? `${err.kind}: ${err.message}` : err instanceof Error ? err.message : String(err);
    throw new StepFailure(step, detail);
  }
}

const answerOf = (result: TradeResult) => `${retcodeName(result.retcode)} (${result.retcode})${result.comment ? ` ${result.comment}` : ''}`;

/** The profit, commission and swap of the position's closing deals, when the venue lists them; null otherwise. */
async function realisedPl(terminal: CountedTerminal, ticket: string, startedAt: number): Promise<string | null> {
  try {
    const deals = await terminal.deals({ from: startedAt - 60_000, to: systemClock.now() + 60_000, position: ticket });
    const exits = deals.filter((d) => d.entry !== 'in');
    if (exits.length === 0) return null;
    // To a hundredth of a cent: a minimum order's P/L is often less than a cent.
    return String(Math.round(exits.reduce((sum, d) => sum + d.profit + d.commission + d.swap, 0) * 10_000) / 10_000 || 0);
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  if (cli === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const settings = settingsOf(cli.venue, loadBaseEnv());
  say('settings', describeVenue(cli.venue, settings));

  const connection = openVenue(cli.venue, settings, { clock: systemClock });
  const startedAt = systemClock.now();
  const smoke: Smoke = { cli, connection, terminal: connection.terminal(), startedAt, comment: smokeId(startedAt) };
  let code = 0;
  try {
    const account = await checkAccount(smoke);
    const { info, quote } = await readTerms(smoke);
    await closePosition(smoke, await placeOrder(smoke, info, quote), account.currency);
  } catch (err) {
    if (!(err instanceof StepFailure)) throw err;
    process.stderr.write(`smoke: FAILED at the ${err.step} step: ${err.message}\n`);
    if (smoke.open) {
      const { ticket, comment } = smoke.open;
      const which = ticket === null ? `ticket unknown, look for the comment ${comment}` : `ticket ${ticket} (comment ${comment})`;
      process.stderr.write(`smoke: A POSITION MAY BE OPEN on the ${cli.venue} account: ${cli.symbol} buy, ${which}; check the account and close it there\n`);
    }
    code = 1;
  } finally {
    await connection.close().then(
      () => say('disconnect', 'closed the venue connections'),
      (err: unknown) => process.stderr.write(`smoke: FAILED at the disconnect step: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  }
  if (code === 0) say('passed', `every step on ${cli.venue}`);
  return code;
}

let exitCode: number;
try {
  exitCode = await main();
} catch (err) {
  if (!(err instanceof Refusal)) throw err;
  process.stderr.write(`smoke: ${err.message}\n`);
  exitCode = 2;
}
process.exitCode = exitCode;
// The venue's connections are closed: nothing should hold the process now; if something does, say so and go.
setTimeout(() => {
  process.stderr.write(`smoke: something still held the process ${EXIT_GRACE_MS / 1000} s after the venue closed; exiting\n`);
  process.exit(exitCode);
}, EXIT_GRACE_MS).unref();
