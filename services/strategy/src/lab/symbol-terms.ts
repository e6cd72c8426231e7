import { simulatedSymbolInfo, symbolSpec } from '@fxdesk/broker';
import type { ExecutionClient } from '@fxdesk/client';
import type { VolumeTerms } from '@fxdesk/trading';
import { volumeTermsOf } from '../entry-sizing.js';
import type { PlannedPair } from './plan.js';

/**
 * Where a lab job reads each pair's volume terms for sizing by risk (contract size, volume min,
 * max and step): the venue's, never a table of guesses. Read once at the job's start, passed into
 * the job as its candles are.
 */
export interface LabSymbolTerms {
  terms(symbol: string): Promise<VolumeTerms>;
}

/** The execution service's GET /v1/symbols/{symbol} (EXECUTION_URL): the venue the desk trades on. */
export class ExecutionLabTerms implements LabSymbolTerms {
  constructor(private readonly client: Pick<ExecutionClient, 'symbolTerms'>) {}

  async terms(symbol: string): Promise<VolumeTerms> {
    return volumeTermsOf(await this.client.symbolTerms(symbol));
  }
}

/** The simulated terminal's terms (packages/broker's symbol specs): without EXECUTION_URL the desk trades there. */
export class SimulatedLabTerms implements LabSymbolTerms {
  async terms(symbol: string): Promise<VolumeTerms> {
    const spec = symbolSpec(symbol);
    if (!spec) throw new RangeError(`the simulated terminal does not list ${symbol}: set EXECUTION_URL to read the venue's terms`);
    const info = simulatedSymbolInfo(spec, 'full');
    return { contractSize: info.contractSize, volumeMin: info.volumeMin, volumeMax: info.volumeMax, volumeStep: info.volumeStep, stopsLevel: info.stopsLevel };
  }
}

/** The venue could not give a job's volume terms: the job fails (SYMBOL_TERMS_UNAVAILABLE), nothing is sized on a guess. */
export class SymbolTermsUnavailable extends Error {}

/** Each pair's terms by instrument, read once; the first failure fails the job. */
export async function readTerms(source: LabSymbolTerms, pairs: readonly PlannedPair[]): Promise<Record<string, VolumeTerms>> {
  const terms: Record<string, VolumeTerms> = {};
  for (const pair of pairs) {
    try {
      terms[pair.instrument] = await source.terms(pair.symbol);
    } catch (err) {
      throw new SymbolTermsUnavailable(`the venue could not give the volume terms of ${pair.symbol}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }
  return terms;
}
