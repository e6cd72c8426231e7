/**
 * Fault injection for the simulated terminal, for tests and demos (`SIM_TERMINAL_FAULTS`).
 *
 * - `timeout`: the call throws BrokerError `timeout` without reaching the "server".
 * - `disconnect`: the terminal drops its connection, and the call throws BrokerError `disconnected`.
 * - `ambiguous`: the call IS executed, then the answer is lost: BrokerError `timeout`.
 * - `hang`: the call never settles until `releaseHung()` (then it runs and answers).
 * - `stall`: the call IS executed at once, then its answer is held until `releaseHung()`.
 */

export const FAULT_METHODS = [
  'orderSend',
  'orderCheck',
  'tick',
  'symbolInfo',
  'positions',
  'orders',
  'closePosition',
  'modifyPosition',
  'cancelOrder',
  'deals',
] as const;
export const FAULT_KINDS = ['timeout', 'disconnect', 'ambiguous', 'hang', 'stall'] as const;

export type FaultMethod = (typeof FAULT_METHODS)[number];
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  method: FaultMethod;
  kind: FaultKind;
  /** How many calls fail this way; every call until `clearFaults()` when omitted. */
  times?: number;
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/**
 * Parses `method:kind[:times]` items, comma-separated, e.g. `orderSend:ambiguous:1,orderCheck:timeout`.
 * Blank text means no faults. Throws a RangeError naming the bad item and what is allowed.
 */
export function parseFaultSpec(text: string): FaultSpec[] {
  if (text.trim() === '') return [];
  return text.split(',').map((raw) => {
    const item = raw.trim();
    const [method = '', kind = '', times, ...rest] = item.split(':').map((p) => p.trim());
    const problem =
      rest.length > 0 || method === '' || kind === ''
        ? 'expected method:kind[:times]'
        : !isOneOf(FAULT_METHODS, method)
          ? `unknown method "${method}" (one of ${FAULT_METHODS.join(', ')})`
          : !isOneOf(FAULT_KINDS, kind)
            ? `unknown kind "${kind}" (one of ${FAULT_KINDS.join(', ')})`
            : times !== undefined && !/^[1-9]\d*$/.test(times)
              ? `times "${times}" is not a positive integer`
              : undefined;
    if (problem) throw new RangeError(`invalid fault "${item}": ${problem}`);
    const spec: FaultSpec = { method: method as FaultMethod, kind: kind as FaultKind };
    if (times !== undefined) spec.times = Number(times);
    return spec;
  });
}

/** The armed faults, consumed in the order they were injected. */
export class FaultPlan {
  private faults: { method: FaultMethod; kind: FaultKind; remaining: number }[] = [];

  inject(fault: FaultSpec): void {
    if (!isOneOf(FAULT_METHODS, fault.method)) throw new RangeError(`unknown fault method ${String(fault.method)}`);
    if (!isOneOf(FAULT_KINDS, fault.kind)) throw new RangeError(`unknown fault kind ${String(fault.kind)}`);
    if (fault.times !== undefined && (!Number.isInteger(fault.times) || fault.times < 1)) {
      throw new RangeError('fault times must be a positive integer');
    }
    this.faults.push({ method: fault.method, kind: fault.kind, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.faults = [];
  }

  /** The fault this call of `method` suffers, if any (counting it down). */
  take(method: FaultMethod): FaultKind | undefined {
    const fault = this.faults.find((f) => f.method === method);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault.kind;
  }
}
