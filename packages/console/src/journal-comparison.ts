import type { BacktestRequest, BacktestSummary, JournalAccount, JournalTrade, Timeframe } from '@fxdesk/schemas';
import { MAX_INSTRUMENTS } from './lab/requests.js';

/**
 * The journal beside a backtest of the same period (issue 23), pure: what "the same period" is,
 * the backtest that replays it, and how an earlier one is found again. The period runs from the
 * UTC midnight of the day the account's first closed trade entered to the moment the journal was
 * read; the backtest runs the desk's pairs and timeframe on the strategy's own settings and fill
 * model (a request that overrides none), from the equity the journal had at its start.
 */

const DAY_MS = 86_400_000;

/** Where the period starts: the UTC midnight of the day the first closed trade entered (ISO). */
export function periodStart(firstTrade: Pick<JournalTrade, 'entry_time'>): string {
  return new Date(Math.floor(Date.parse(firstTrade.entry_time) / DAY_MS) * DAY_MS).toISOString();
}

/** The name the comparison's backtest goes by in the Lab, which finds it again: the account and the period's first day. */
export function comparisonName(account: JournalAccount, fromIso: string): string {
  return `Journal ${account} since ${fromIso.slice(0, 10)}`;
}

export interface Period {
  account: JournalAccount;
  /** The desk's pairs (at most 20) and timeframe. */
  instruments: string[];
  timeframe: Timeframe;
  fromIso: string;
  toIso: string;
  /** The journal's equity at `fromIso`: the backtest's initial balance when positive. */
  initialEquity: number;
}

/** POST /backtests's body for the period: nothing overridden, so the run takes the strategy's rules and the paper account's fills. */
export function comparisonRequest(period: Period): BacktestRequest {
  const body: BacktestRequest = {
    name: comparisonName(period.account, period.fromIso),
    instruments: [...period.instruments].sort().slice(0, MAX_INSTRUMENTS),
    timeframe: period.timeframe,
    from: period.fromIso,
    to: period.toIso,
  };
  if (period.initialEquity > 0) body.initial_balance = period.initialEquity;
  return body;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** The newest backtest of `backtests` (newest first) that replays this request's period, pairs and timeframe; a cancelled one is no answer. */
export function findComparison(backtests: readonly BacktestSummary[], request: BacktestRequest): BacktestSummary | null {
  return (
    backtests.find(
      (b) =>
        b.status !== 'cancelled' &&
        b.name === request.name &&
        b.settings.timeframe === request.timeframe &&
        Date.parse(b.settings.from) === Date.parse(request.from) &&
        sameSet(b.settings.instruments, request.instruments),
    ) ?? null
  );
}
