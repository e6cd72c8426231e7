import type { Clock, TimerHandle } from '@fxdesk/primitives';
import WebSocket from 'ws';
import { BrokerError } from '../errors.js';
import { Listeners } from '../listeners.js';
import { errorFromWire } from './error-mapping.js';
import { EnvelopeSchema, ErrorResSchema, messageText, PayloadType, payloadTypeLabel, type Envelope } from './wire.js';

export interface ConnectionOptions {
  url: string;
  clock: Clock;
  /** Longest wait for the WebSocket handshake and for each response. */
  timeoutMs: number;
  /** "To keep a connection alive, keep sending a heartbeat event every 10 seconds." */
  heartbeatIntervalMs: number;
  /** Silence from the server after which the link counts as dead (checked at each heartbeat). */
  deadAfterMs: number;
}

interface Pending {
  /** Whether this answer ends the exchange; the answers up to it are what the request resolves with. */
  isLast: (envelope: Envelope) => boolean;
  answers: Envelope[];
  label: string;
  timer: TimerHandle;
  resolve: (answers: Envelope[]) => void;
  reject: (err: unknown) => void;
}

/**
 * One WebSocket to a cTrader Open API proxy, speaking JSON envelopes: requests matched to
 * their response by `clientMsgId` (each with a timeout on the injected clock), events handed
 * to listeners, a heartbeat every `heartbeatIntervalMs`, and a dead-link check: the proxy's
 * ProtoHeartbeatEvent "can be used as criteria that connection is healthy when no other
 * messages are sent", so a link silent for `deadAfterMs` is cut. Closing is final: a new
 * session needs a new connection.
 */
export class OpenApiConnection {
  private readonly socket: WebSocket;
  private readonly options: ConnectionOptions;
  private readonly pending = new Map<string, Pending>();
  private readonly eventListeners = new Listeners<Envelope>();
  private readonly closeListeners = new Listeners<string>();
  private readonly heartbeat: TimerHandle;
  private lastInboundAt: number;
  private nextMessageId = 1;
  private closedReason: string | undefined;

  private constructor(socket: WebSocket, options: ConnectionOptions) {
    this.socket = socket;
    this.options = options;
    this.lastInboundAt = options.clock.now();
    socket.on('message', (data) => this.receive(messageText(data)));
    socket.on('error', () => {
      // 'close' follows every 'error' and reports the loss.
    });
    socket.on('close', (code, reason) => {
      const detail = reason.length > 0 ? `: ${reason.toString()}` : '';
      this.shutdown(`connection closed by the server (code ${code}${detail})`, false);
    });
    this.heartbeat = options.clock.setInterval(() => this.beat(), options.heartbeatIntervalMs).unref();
  }

  /** Opens the WebSocket; rejects with `unavailable` (refused, HTTP error) or `timeout`. */
  static open(options: ConnectionOptions): Promise<OpenApiConnection> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(options.url, { perMessageDeflate: false });
      const fail = (err: BrokerError) => {
        options.clock.clearTimer(timer);
        socket.removeAllListeners();
        socket.on('error', () => {});
        socket.terminate();
        reject(err);
      };
      const timer = options.clock
        .setTimeout(() => fail(new BrokerError('timeout', `no WebSocket connection to ${options.url} within ${options.timeoutMs} ms`)), options.timeoutMs)
        .unref();
      socket.once('error', (err) => fail(new BrokerError('unavailable', `cannot connect to ${options.url}: ${err.message}`, { cause: err })));
      socket.once('open', () => {
        options.clock.clearTimer(timer);
        socket.removeAllListeners();
        resolve(new OpenApiConnection(socket, options));
      });
    });
  }

  get isOpen(): boolean {
    return this.closedReason === undefined;
  }

  onEvent(listener: (event: Envelope) => void): void {
    this.eventListeners.add(listener);
  }

  /** Called once, with the reason, however the connection ends. */
  onClose(listener: (reason: string) => void): void {
    this.closeListeners.add(listener);
  }

  /**
   * Sends a request and resolves with the payload of the response of type `expect`. An error
   * response rejects with its BrokerError; no answer within the timeout rejects with `timeout`;
   * a connection that closes first rejects with `disconnected`. Any other answer is `protocol`.
   */
  async request(payloadType: number, payload: Record<string, unknown>, expect: number): Promise<Record<string, unknown>> {
    const [answer] = await this.exchange(payloadType, payload, () => true);
    if (answer?.payloadType === expect) return answer.payload;
    throw new BrokerError('protocol', `cTrader answered ${payloadTypeLabel(payloadType)} with ${payloadTypeLabel(answer?.payloadType ?? 0)}`);
  }

  /**
   * Sends a request answered by several messages carrying its `clientMsgId` (a trading request's
   * execution events: "ORDER_ACCEPTED", then "ORDER_FILLED"), and resolves with them once
   * `isLast` holds for one, all within one timeout. ProtoOAErrorRes / ProtoErrorRes reject as in
   * `request`.
   */
  exchange(payloadType: number, payload: Record<string, unknown>, isLast: (envelope: Envelope) => boolean): Promise<Envelope[]> {
    if (this.closedReason !== undefined) return Promise.reject(this.disconnected(this.closedReason));
    const clientMsgId = `fxdesk-${this.nextMessageId++}`;
    const label = payloadTypeLabel(payloadType);
    return new Promise((resolve, reject) => {
      const timer = this.options.clock
        .setTimeout(() => {
          this.pending.delete(clientMsgId);
          reject(new BrokerError('timeout', `cTrader did not answer ${label} within ${this.options.timeoutMs} ms`));
        }, this.options.timeoutMs)
        .unref();
      this.pending.set(clientMsgId, { isLast, answers: [], label, timer, resolve, reject });
      this.send({ clientMsgId, payloadType, payload });
    });
  }

  /** Ends the connection from this side; `reason` is what the close listeners hear. */
  close(reason: string): void {
    this.shutdown(reason, true);
  }

  private beat(): void {
    const silentMs = this.options.clock.now() - this.lastInboundAt;
    if (silentMs >= this.options.deadAfterMs) {
      this.shutdown(`heartbeat timeout: nothing from the server for ${Math.round(silentMs / 1000)} s`, true);
      return;
    }
    this.send({ payloadType: PayloadType.HEARTBEAT_EVENT, payload: {} });
  }

  private send(envelope: { clientMsgId?: string; payloadType: number; payload: Record<string, unknown> }): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify(envelope), (err) => {
      if (err) this.shutdown(`send failed: ${err.message}`, true);
    });
  }

  private receive(text: string): void {
    this.lastInboundAt = this.options.clock.now();
    let envelope: Envelope;
    try {
      envelope = EnvelopeSchema.parse(JSON.parse(text));
    } catch {
      // Not an Open API envelope: nothing can be matched or dispatched from it.
      return;
    }
    const pending = envelope.clientMsgId === undefined ? undefined : this.pending.get(envelope.clientMsgId);
    if (!pending) {
      this.eventListeners.emit(envelope);
      return;
    }
    if (envelope.payloadType === PayloadType.OA_ERROR_RES || envelope.payloadType === PayloadType.ERROR_RES) {
      this.settle(envelope.clientMsgId as string, pending);
      const error = ErrorResSchema.safeParse(envelope.payload);
      pending.reject(
        error.success
          ? errorFromWire(error.data, envelope.payloadType, this.options.clock.now())
          : new BrokerError('protocol', `cTrader answered ${pending.label} with a malformed error`),
      );
      return;
    }
    pending.answers.push(envelope);
    if (!pending.isLast(envelope)) return;
    this.settle(envelope.clientMsgId as string, pending);
    pending.resolve(pending.answers);
  }

  private settle(clientMsgId: string, pending: Pending): void {
    this.pending.delete(clientMsgId);
    this.options.clock.clearTimer(pending.timer);
  }

  private shutdown(reason: string, isLocal: boolean): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    this.options.clock.clearTimer(this.heartbeat);
    for (const [id, pending] of this.pending) {
      this.options.clock.clearTimer(pending.timer);
      pending.reject(this.disconnected(reason));
      this.pending.delete(id);
    }
    if (isLocal) this.socket.terminate();
    this.closeListeners.emit(reason);
  }

  private disconnected(reason: string): BrokerError {
    return new BrokerError('disconnected', `the cTrader connection is closed (${reason})`);
  }
}
