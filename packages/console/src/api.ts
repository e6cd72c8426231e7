import { callPath, type ServiceCall } from '@fxdesk/client/service-call';
import { strategyCalls } from '@fxdesk/client/strategy-calls';
import {
  ErrorEnvelopeSchema,
  type BacktestRequest,
  type DeliveryStatus,
  type ErrorEnvelopeBody,
  type ExitReason,
  type JournalAccount,
  type PerformanceQuery,
  type SignalState,
  type StartRequest,
  type SweepRequest,
  type Timeframe,
} from '@fxdesk/schemas';
import type { z } from 'zod';

/** One thing a refused request got wrong (the envelope's `details`): `body.rules.min_confluence`, why. */
export type ErrorDetail = NonNullable<ErrorEnvelopeBody['details']>[number];

/** A refused or failed call: the error envelope's code, message and details, or `NETWORK` when nothing answered. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null = null,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get isNetwork(): boolean {
    return this.status === 0;
  }
}

type Query = Record<string, string | number | undefined | null>;

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function errorOf(res: Response): Promise<ApiError> {
  const retryAfter = Number(res.headers.get('retry-after'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
  // An answer that is not the error envelope (a proxy's page, say) is described by its status.
  const envelope = ErrorEnvelopeSchema.safeParse(await res.json().catch(() => undefined));
  if (envelope.success) {
    const { code, message, details = [] } = envelope.data;
    return new ApiError(res.status, code, message, retryAfterSeconds, details);
  }
  return new ApiError(res.status, `HTTP_${res.status}`, `the strategy service answered ${res.status} ${res.statusText}`.trim(), retryAfterSeconds);
}

/** What one sending of a call carries besides the call itself. */
interface CallParts {
  /** Values of the path's `{name}` parameters. */
  params?: Record<string, string>;
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Headers of the call's own (an Idempotency-Key). */
  headers?: Record<string, string>;
}

/**
 * The strategy service, the console's only peer (same origin: the session cookie goes along by
 * itself). Each method sends one of the strategy's calls (`strategyCalls` of @fxdesk/client) and
 * reads its answer with the schema the service writes it with. Every POST and DELETE carries the
 * session's CSRF token; a console route answering 401 means the session ended, which
 * `onUnauthorized` hears.
 */
export class Api {
  csrfToken: string | null = null;
  onUnauthorized: () => void = () => {};

  private async send<S extends z.ZodType>(call: ServiceCall<S>, parts: CallParts = {}): Promise<z.output<S>> {
    return this.read(call, await this.exchange(call, parts, [call.status]));
  }

  /** A DELETE of the lab: the job's record when it was cancelled, undefined (204) when it had ended and is gone. */
  private async remove<S extends z.ZodType>(call: ServiceCall<S>, params: Record<string, string>): Promise<z.output<S> | undefined> {
    const res = await this.exchange(call, { params }, [call.status, 204]);
    return res.status === 204 ? undefined : this.read(call, res);
  }

  /** Sends the call; throws the ApiError of any answer but the `accepted` statuses. */
  private async exchange(call: ServiceCall, { params, query, body, headers: own }: CallParts, accepted: number[]): Promise<Response> {
    const headers: Record<string, string> = { ...own, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (call.method !== 'GET' && this.csrfToken) headers['x-csrf-token'] = this.csrfToken;
    let res: Response;
    try {
      res = await fetch(withQuery(callPath(call, params), query), {
        method: call.method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
      });
    } catch {
      throw new ApiError(0, 'NETWORK', 'the strategy service is not answering');
    }
    if (accepted.includes(res.status)) return res;
    if (res.ok) throw new ApiError(res.status, 'INVALID_RESPONSE', `${call.method} ${call.path} answered ${res.status}, not ${call.status}`);
    const error = await errorOf(res);
    if (res.status === 401 && call.path.startsWith('/console/') && call !== strategyCalls.consoleLogin) this.onUnauthorized();
    throw error;
  }

  /** The answer's body, read with the call's schema. */
  private async read<S extends z.ZodType>(call: ServiceCall<S>, res: Response): Promise<z.output<S>> {
    const answer = call.schema.safeParse(await res.json().catch(() => undefined));
    if (answer.success) return answer.data;
    const first = answer.error.issues[0];
    const where = first ? `${first.path.join('.') || '(body)'}: ${first.message}` : 'unexpected shape';
    throw new ApiError(res.status, 'INVALID_RESPONSE', `${call.method} ${call.path} answered an unexpected body (${where})`);
  }

  // The session.
  session = () => this.send(strategyCalls.consoleSession);
  login = (password: string) => this.send(strategyCalls.consoleLogin, { body: { password } });
  logout = () => this.send(strategyCalls.consoleLogout);

  // Spec 000's reads, through the console's copies: the same answers on the console's own budget
  // (CONSOLE_READS_PER_MINUTE per session), not the 60 GETs a minute that curl and bots share.
  status = () => this.send(strategyCalls.consoleStatus);
  pairs = async () => (await this.send(strategyCalls.consolePairs)).pairs;
  pairCandles = (instrument: string, query: { timeframe?: Timeframe; limit?: number }) =>
    this.send(strategyCalls.consolePairCandles, { params: { instrument }, query });
  signals = (query: { instrument?: string; limit?: number; cursor?: string | null }) => this.send(strategyCalls.consoleSignals, { query });

  // The console's read-through routes.
  services = () => this.send(strategyCalls.consoleServices);
  account = () => this.send(strategyCalls.consoleAccount);
  orders = (query: { state?: SignalState; symbol?: string; limit?: number; cursor?: string | null }) => this.send(strategyCalls.consoleOrders, { query });
  order = (signalId: string) => this.send(strategyCalls.consoleOrder, { params: { signal_id: signalId } });
  deliveries = (query: { status?: DeliveryStatus; source?: string; limit?: number; cursor?: string | null }) =>
    this.send(strategyCalls.consoleDeliveries, { query });

  // The strategy's positions at the execution service. An action's key is the caller's: one per
  // click, the same for that click's retries, so a retry is answered from the record, never closed twice.
  positions = () => this.send(strategyCalls.consolePositions);
  closePosition = (ticket: string, idempotencyKey: string) =>
    this.send(strategyCalls.consoleClosePosition, { params: { ticket }, body: {}, headers: { 'idempotency-key': idempotencyKey } });
  closeAll = (idempotencyKey: string) => this.send(strategyCalls.consoleCloseAll, { body: {}, headers: { 'idempotency-key': idempotencyKey } });

  // The trade journal.
  trades = (query: JournalFilter & { to?: string; limit?: number; cursor?: string | null }) => this.send(strategyCalls.consoleTrades, { query });
  /** The account's metrics and realized equity after each trade, over the trades with an exit in [from, to) (default: the first trade to now). */
  performance = (query: PerformanceQuery) => this.send(strategyCalls.consolePerformance, { query });

  // The desk's risk: the limits, their use and the halt per account; a person's resume of a halted account.
  risk = () => this.send(strategyCalls.consoleRisk);
  resumeRisk = (account: JournalAccount) => this.send(strategyCalls.consoleResumeRisk, { body: { account } });

  // The console's control routes (spec 000's answers, behind the session and its CSRF token).
  start = (body: StartRequest) => this.send(strategyCalls.consoleStart, { body });
  stop = () => this.send(strategyCalls.consoleStop);
  restart = () => this.send(strategyCalls.consoleRestart);

  // The strategy lab (spec 000's style and limits, not under /console).
  /** What a backtest takes for each setting its request leaves out (the form's empty fields). */
  labDefaults = () => this.send(strategyCalls.labDefaults);
  startBacktest = (body: BacktestRequest) => this.send(strategyCalls.submitBacktest, { body });
  backtests = (query: { limit?: number; cursor?: string | null; sweep_id?: string }) => this.send(strategyCalls.backtests, { query });
  backtest = (id: string) => this.send(strategyCalls.backtest, { params: { id } });
  backtestTrades = (id: string, query: { instrument?: string; limit?: number; cursor?: string | null }) =>
    this.send(strategyCalls.backtestTrades, { params: { id }, query });
  backtestEquity = (id: string) => this.send(strategyCalls.backtestEquity, { params: { id } });
  /** One pair's candles of a backtest with the indicators on its rules (at most the desk's CHART_CANDLES, the newest before `to`). */
  backtestCandles = (id: string, query: { instrument: string; from?: string; to?: string; limit?: number }) =>
    this.send(strategyCalls.backtestCandles, { params: { id }, query });
  /** Cancels a queued or running backtest (its record, now cancelled), or deletes a finished one (undefined). */
  deleteBacktest = (id: string) => this.remove(strategyCalls.deleteBacktest, { id });
  startSweep = (body: SweepRequest) => this.send(strategyCalls.submitSweep, { body });
  sweeps = (query: { limit?: number; cursor?: string | null }) => this.send(strategyCalls.sweeps, { query });
  sweep = (id: string) => this.send(strategyCalls.sweep, { params: { id } });
  /** Cancels a queued or running sweep (its record, now cancelled), or deletes a finished one with its backtests (undefined). */
  deleteSweep = (id: string) => this.remove(strategyCalls.deleteSweep, { id });
}

/** The journal's filters, as GET /console/trades takes them. */
export type JournalFilter = {
  account?: JournalAccount;
  instrument?: string;
  exit_reason?: ExitReason;
};

/** The address of the journal's CSV download: every trade the filter matches. */
export function tradesCsvHref(filter: JournalFilter): string {
  return withQuery(strategyCalls.consoleTrades.path, { ...filter, format: 'csv' });
}

/** A fresh Idempotency-Key (random, 128 bits, hex): `crypto.randomUUID` needs a secure context, this does not. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** A one-line explanation of a failed call for the page. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'RATE_LIMITED' || err.status === 429) return `too many requests; try again in ${err.retryAfterSeconds ?? 60} s`;
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** A failed call for the page, with what a 422 found wrong field by field (`to: not in the future`). */
export function describeRefusal(err: unknown): string {
  const message = describeError(err);
  if (!(err instanceof ApiError) || err.details.length === 0) return message;
  return `${message} (${err.details.map((d) => `${d.path.replace(/^(body|query)\./, '')}: ${d.message}`).join('; ')})`;
}
