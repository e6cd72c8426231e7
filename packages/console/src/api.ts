import type {
  AccountSummaryRead,
  Backtest,
  BacktestEquity,
  BacktestList,
  BacktestRequest,
  BacktestTrades,
  ConsoleServices,
  ConsoleSession,
  DeliveryList,
  DeliveryStatus,
  LabJobCreated,
  PairCandles,
  PairRecord,
  RestartResponse,
  SignalHistory,
  SignalList,
  SignalRecord,
  SignalState,
  StartRequest,
  StartResponse,
  StopResponse,
  StrategyStatus,
  Sweep,
  SweepList,
  SweepRequest,
  Timeframe,
} from '@fxdesk/schemas';

/** One thing a refused request got wrong (the envelope's `details`): `body.rules.min_confluence`, why. */
export interface ErrorDetail {
  path: string;
  message: string;
}

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
  try {
    const body = (await res.json()) as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof body.code === 'string') {
      const details = Array.isArray(body.details) ? (body.details as ErrorDetail[]) : [];
      return new ApiError(res.status, body.code, typeof body.message === 'string' ? body.message : res.statusText, retryAfterSeconds, details);
    }
  } catch {
    // not the error envelope (a proxy's page, say): described by its status below
  }
  return new ApiError(res.status, `HTTP_${res.status}`, `the strategy service answered ${res.status} ${res.statusText}`.trim(), retryAfterSeconds);
}

/**
 * The strategy service, the console's only peer (same origin: the session cookie goes along by
 * itself). Every POST and DELETE carries the session's CSRF token; a console route answering 401
 * means the session ended, which `onUnauthorized` hears.
 */
export class Api {
  csrfToken: string | null = null;
  onUnauthorized: () => void = () => {};

  private async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && this.csrfToken) headers['x-csrf-token'] = this.csrfToken;
    let res: Response;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    } catch {
      throw new ApiError(0, 'NETWORK', 'the strategy service is not answering');
    }
    if (!res.ok) {
      const error = await errorOf(res);
      if (res.status === 401 && path.startsWith('/console/') && path !== '/console/login') this.onUnauthorized();
      throw error;
    }
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', withQuery(path, query));
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  delete(path: string): Promise<void> {
    return this.request<void>('DELETE', path);
  }

  // The session.
  session = () => this.get<ConsoleSession>('/console/session');
  login = (password: string) => this.post<ConsoleSession>('/console/login', { password });
  logout = () => this.post<ConsoleSession>('/console/logout');

  // Spec 000's reads, through the console's copies: the same answers on the console's own budget
  // (CONSOLE_READS_PER_MINUTE per session), not the 60 GETs a minute that curl and bots share.
  status = () => this.get<StrategyStatus>('/console/status');
  pairs = async () => (await this.get<{ pairs: PairRecord[] }>('/console/pairs')).pairs;
  pairCandles = (instrument: string, query: { timeframe?: Timeframe; limit?: number }) =>
    this.get<PairCandles>(`/console/pairs/${encodeURIComponent(instrument)}/candles`, query);
  signals = (query: { instrument?: string; limit?: number; cursor?: string | null }) => this.get<SignalHistory>('/console/signals', query);

  // The console's read-through routes.
  services = () => this.get<ConsoleServices>('/console/services');
  account = () => this.get<AccountSummaryRead>('/console/account');
  orders = (query: { state?: SignalState; symbol?: string; limit?: number; cursor?: string | null }) => this.get<SignalList>('/console/orders', query);
  order = (signalId: string) => this.get<SignalRecord>(`/console/orders/${encodeURIComponent(signalId)}`);
  deliveries = (query: { status?: DeliveryStatus; source?: string; limit?: number; cursor?: string | null }) =>
    this.get<DeliveryList>('/console/deliveries', query);

  // The console's control routes (spec 000's answers, behind the session and its CSRF token).
  start = (body: StartRequest) => this.post<StartResponse>('/console/start', body);
  stop = () => this.post<StopResponse>('/console/stop');
  restart = () => this.post<RestartResponse>('/console/restart');

  // The strategy lab (spec 000's style and limits, not under /console).
  startBacktest = (body: BacktestRequest) => this.post<LabJobCreated>('/backtests', body);
  backtests = (query: { limit?: number; cursor?: string | null; sweep_id?: string }) => this.get<BacktestList>('/backtests', query);
  backtest = (id: string) => this.get<Backtest>(`/backtests/${encodeURIComponent(id)}`);
  backtestTrades = (id: string, query: { instrument?: string; limit?: number; cursor?: string | null }) =>
    this.get<BacktestTrades>(`/backtests/${encodeURIComponent(id)}/trades`, query);
  backtestEquity = (id: string) => this.get<BacktestEquity>(`/backtests/${encodeURIComponent(id)}/equity`);
  /** One pair's candles of a backtest with the indicators on its rules (at most the desk's CHART_CANDLES, the newest before `to`). */
  backtestCandles = (id: string, query: { instrument: string; from?: string; to?: string; limit?: number }) =>
    this.get<PairCandles>(`/backtests/${encodeURIComponent(id)}/candles`, query);
  /** Cancels a queued or running backtest, or deletes a finished one. */
  deleteBacktest = (id: string) => this.delete(`/backtests/${encodeURIComponent(id)}`);
  startSweep = (body: SweepRequest) => this.post<LabJobCreated>('/sweeps', body);
  sweeps = (query: { limit?: number; cursor?: string | null }) => this.get<SweepList>('/sweeps', query);
  sweep = (id: string) => this.get<Sweep>(`/sweeps/${encodeURIComponent(id)}`);
  deleteSweep = (id: string) => this.delete(`/sweeps/${encodeURIComponent(id)}`);
}

/** A one-line explanation of a failed call for the page. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'RATE_LIMITED' || err.status === 429) return `too many requests; try again in ${err.retryAfterSeconds ?? 60} s`;
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
