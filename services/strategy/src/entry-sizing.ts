/**
 * The lots of an entry (issue 24, README "Sizing"), one function for the live account and the paper
 * account: SIZING=fixed is TRADE_VOLUME; SIZING=risk is @fxdesk/trading's riskLots of the
 * account's equity, the venue's volume terms and the rate of the symbol's profit currency in the
 * account currency. Each account brings its own sources (live: the account service, the execution
 * service's GET /v1/symbols/{symbol} and the market's rates; paper: its own equity and the
 * simulated terminal's terms); a source that does not answer skips the entry with its reason.
 */
import type { SymbolTerms } from '@fxdesk/schemas';
import { riskLots, SIZING_SKIPS, type VolumeTerms } from '@fxdesk/trading';

/** Why no volume was decided: riskLots' reasons, and a source that did not answer. */
export const ENTRY_SIZE_SKIPS = [...SIZING_SKIPS, 'no_equity', 'no_volume_terms'] as const;
export type EntrySizeSkip = (typeof ENTRY_SIZE_SKIPS)[number];

export interface SizingSettings {
  /** RISK_PERCENT with SIZING=risk; null: fixed lots. */
  riskPercent: number | null;
  /** TRADE_VOLUME: the lots of every entry with SIZING=fixed. */
  fixedLots: string;
}

/** What the sizing reads of an account at an entry; null: that source did not answer. */
export interface SizingSources {
  /** Equity in the account currency. */
  equity: number | null;
  terms: VolumeTerms | null;
  /** One unit of the symbol's profit currency in the account currency. */
  quoteToAccount: number | null;
}

const NOTHING_READ: SizingSources = { equity: null, terms: null, quoteToAccount: null };

export type EntrySize = { lots: string } | { skipped: EntrySizeSkip; detail: string };

/** The lots of an entry at `entry` with its stop at `stop`; fixed sizing reads no source (pass null). */
export function entrySize(settings: SizingSettings, entry: number, stop: number, sources: SizingSources | null): EntrySize {
  if (settings.riskPercent === null) return { lots: settings.fixedLots };
  const { equity, terms, quoteToAccount } = sources ?? NOTHING_READ;
  if (equity === null) return { skipped: 'no_equity', detail: 'the account’s equity is not known now' };
  if (terms === null) return { skipped: 'no_volume_terms', detail: 'the venue did not give the symbol’s volume terms' };
  const sized = riskLots({ equity, riskPercent: settings.riskPercent, entry, stop, terms, quoteToAccount: quoteToAccount ?? Number.NaN });
  return 'lots' in sized ? { lots: sized.lots } : sized;
}

/**
 * The execution service's terms of a symbol as the sizing reads them: its maximum is the largest
 * order the service sends (the venue's and its MAXIMUM_VOLUME, the smaller), so a size by risk is
 * capped there, never refused there.
 */
export function volumeTermsOf(terms: Pick<SymbolTerms, 'contract_size' | 'volume_min' | 'order_volume_max' | 'volume_step' | 'stops_level'>): VolumeTerms {
  return {
    contractSize: terms.contract_size,
    volumeMin: terms.volume_min,
    volumeMax: terms.order_volume_max,
    volumeStep: terms.volume_step,
    stopsLevel: terms.stops_level,
  };
}

/** Units of `account` per unit of `profit`: 1 for the same currency, else the market's rate (undefined: null). */
export function conversionRate(profit: string, account: string, rate: (from: string, to: string) => number | undefined): number | null {
  if (profit === account) return 1;
  return rate(profit, account) ?? null;
}
