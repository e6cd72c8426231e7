/**
 * The broker symbol of an instrument name: its SYMBOL_MAP entry when there is one, else the
 * name without its underscore (`EUR_USD` → `EURUSD`), as MT5-style brokers spell the majors.
 */
export function symbolOf(instrument: string, symbolMap: Readonly<Record<string, string>>): string {
  return symbolMap[instrument] ?? instrument.replace('_', '');
}

/** The instrument name of a broker symbol: its SYMBOL_MAP entry, else six letters split in two (`EURUSD` → `EUR_USD`), else the symbol itself. */
export function instrumentOfSymbol(symbol: string, symbolMap: Readonly<Record<string, string>>): string {
  const mapped = Object.entries(symbolMap).find(([, s]) => s === symbol)?.[0];
  if (mapped) return mapped;
  return /^[A-Z]{6}$/.test(symbol) ? `${symbol.slice(0, 3)}_${symbol.slice(3)}` : symbol;
}
