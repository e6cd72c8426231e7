import { describe, expect, it } from 'vitest';
import { jobError } from '../src/lab/backtest-runner.js';
import { ExecutionLabTerms, readTerms, SimulatedLabTerms } from '../src/lab/symbol-terms.js';

const EUR_USD = { instrument: 'EUR_USD', symbol: 'EURUSD', digits: 5 };

describe('the volume terms a lab job sizes by risk on', () => {
  it('are the simulated terminal’s without EXECUTION_URL: its contract size, volume min, max and step, and stops level', async () => {
    expect(await readTerms(new SimulatedLabTerms(), [EUR_USD, { instrument: 'XAU_USD', symbol: 'XAUUSD', digits: 2 }])).toEqual({
      EUR_USD: { contractSize: 100_000, volumeMin: '0.01', volumeMax: '100', volumeStep: '0.01', stopsLevel: 10 },
      XAU_USD: { contractSize: 100, volumeMin: '0.01', volumeMax: '50', volumeStep: '0.01', stopsLevel: 30 },
    });
  });

  it('are the execution service’s GET /v1/symbols/{symbol} with EXECUTION_URL, capped at the largest order it sends', async () => {
    const asked: string[] = [];
    const client = {
      symbolTerms: async (symbol: string) => {
        asked.push(symbol);
        return { contract_size: 10_000, volume_min: '0.1', volume_max: '50', order_volume_max: '10', volume_step: '0.1', stops_level: 20 } as never;
      },
    };
    expect(await readTerms(new ExecutionLabTerms(client), [EUR_USD])).toEqual({
      EUR_USD: { contractSize: 10_000, volumeMin: '0.1', volumeMax: '10', volumeStep: '0.1', stopsLevel: 20 },
    });
    expect(asked).toEqual(['EURUSD']);
  });

  it('fail the job with SYMBOL_TERMS_UNAVAILABLE when the venue does not answer, never sized on a guess', async () => {
    const down = { symbolTerms: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const err = await readTerms(new ExecutionLabTerms(down), [EUR_USD]).catch((e: unknown) => e);
    expect(jobError(err)).toEqual({ code: 'SYMBOL_TERMS_UNAVAILABLE', message: 'the venue could not give the volume terms of EURUSD: connect ECONNREFUSED' });
    const unlisted = await readTerms(new SimulatedLabTerms(), [{ instrument: 'EUR_USD', symbol: 'EURUSD.m', digits: 5 }]).catch((e: unknown) => e);
    expect(jobError(unlisted).message).toMatch(/does not list EURUSD\.m: set EXECUTION_URL/);
  });
});
