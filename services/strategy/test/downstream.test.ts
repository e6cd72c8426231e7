import { createLogger, MetricsRegistry } from '@fxdesk/core';
import { LogCapture } from '@fxdesk/core/testing';
import { ManualClock } from '@fxdesk/primitives';
import { describe, expect, it } from 'vitest';
import { DownstreamHealth, STARTING_GRACE_MS } from '../src/downstream.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8003'), { code: 'network_error' });

function health() {
  const clock = new ManualClock();
  const logs = new LogCapture();
  const configured = { execution: true, notification: true, account: true, market_data: true };
  const downstream = new DownstreamHealth(configured, clock, createLogger({ name: 'strategy', level: 'info', stream: logs }), new MetricsRegistry(), {
    downstream: () => undefined,
  });
  const lines = () => logs.lines.map((l) => JSON.parse(l) as { level: string; msg: string; service?: string });
  const warnings = () => lines().filter((l) => ['warn', 'error', 'fatal'].includes(l.level));
  return { clock, downstream, lines, warnings };
}

describe('the downstream services’ health', () => {
  it('logs a service that does not answer yet at start-up at info, not as a warning, while the others start', () => {
    const { clock, downstream, lines, warnings } = health();
    downstream.fail('account', refused);
    clock.advance(1000);
    downstream.fail('account', refused);
    downstream.ok('account');
    expect(warnings()).toEqual([]);
    expect(lines().filter((l) => l.msg === 'account does not answer yet; the strategy goes on')).toHaveLength(1);
    expect(downstream.view().account).toMatchObject({ state: 'ok', consecutive_failures: 0 });
  });

  it('warns once when a service still does not answer after the start-up grace', () => {
    const { clock, downstream, warnings } = health();
    downstream.fail('account', refused);
    clock.advance(STARTING_GRACE_MS);
    downstream.fail('account', refused);
    downstream.fail('account', refused);
    expect(warnings()).toEqual([expect.objectContaining({ msg: 'account call failed; the strategy goes on', service: 'account' })]);
    expect(downstream.view().account).toMatchObject({ state: 'failing', consecutive_failures: 3 });
  });

  it('warns at once when a service that answered fails, even within the start-up grace, and again after it recovered', () => {
    const { downstream, warnings } = health();
    downstream.ok('execution');
    downstream.fail('execution', refused);
    downstream.fail('execution', refused);
    downstream.ok('execution');
    downstream.fail('execution', refused);
    expect(warnings().map((l) => l.msg)).toEqual(['execution call failed; the strategy goes on', 'execution call failed; the strategy goes on']);
  });
});
