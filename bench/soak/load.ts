/** One request of the load: `bad` ones are deliberately wrong input, expected to be refused 4xx. */
export interface Call {
  label: string;
  bad: boolean;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Told the status the call was answered with. */
  answered?: (status: number) => void;
}

/** What the load saw of one service. */
export class Tally {
  sent = 0;
  /** Valid calls answered 2xx. */
  ok = 0;
  bad = 0;
  /** Deliberately bad calls answered 4xx, as they should be. */
  badRefused = 0;
  /** Calls skipped because too many were still waiting for their answer. */
  skipped = 0;
  /** Anything else: `label → status` (or the network error), by count. */
  readonly unexpected = new Map<string, number>();
  /** The first answer of each unexpected kind, to tell why. */
  readonly firstAnswers = new Map<string, string>();

  note(call: Call, status: number | string, answer = ''): void {
    const expected = call.bad ? typeof status === 'number' && status >= 400 && status < 500 : typeof status === 'number' && status < 300;
    if (expected && call.bad) this.badRefused++;
    else if (expected) this.ok++;
    else {
      const key = `${call.method ?? 'GET'} ${call.label} → ${status}`;
      this.unexpected.set(key, (this.unexpected.get(key) ?? 0) + 1);
      if (!this.firstAnswers.has(key)) this.firstAnswers.set(key, answer.slice(0, 300));
    }
  }
}

/**
 * How long a call may wait for its answer: a guard against a hang, not a latency bound (a D1 read
 * on a busy machine takes seconds of wall time; the event loop is measured apart, in CPU time).
 */
const ANSWER_TIMEOUT_MS = 60_000;
const MAX_IN_FLIGHT = 8;

/**
 * Sends `next(n)` at a steady rate, each on its own promise, never more than MAX_IN_FLIGHT
 * waiting at once: a slow service gets no more load than it answers (the skips are counted),
 * so the load stays bounded whatever happens.
 */
export class Pacer {
  private readonly timer: NodeJS.Timeout;
  private inFlight = 0;
  private n = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly base: string,
    perSecond: number,
    private readonly next: (n: number) => Call,
    readonly tally: Tally,
  ) {
    this.timer = setInterval(() => this.tick(), 1000 / perSecond);
  }

  /** Stops sending and waits for the calls in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.pending);
  }

  private tick(): void {
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.tally.skipped++;
      return;
    }
    const call = this.next(this.n++);
    this.inFlight++;
    const sent = this.send(call).finally(() => {
      this.inFlight--;
      this.pending.delete(sent);
    });
    this.pending.add(sent);
  }

  private async send(call: Call): Promise<void> {
    this.tally.sent++;
    if (call.bad) this.tally.bad++;
    try {
      const res = await fetch(new URL(call.path, this.base), {
        method: call.method ?? 'GET',
        headers: { ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}), ...call.headers },
        body: call.body,
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      const answer = await res.text();
      this.tally.note(call, res.status, answer);
      call.answered?.(res.status);
    } catch (err) {
      this.tally.note(call, err instanceof Error ? err.name : 'error');
    }
  }
}
