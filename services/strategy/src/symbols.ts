/**
 * The broker symbol of an instrument name: its SYMBOL_MAP entry when there is one, else the
 * name without its underscore (`EUR_USD` → `EURUSD`), as MT5-style brokers spell the majors.
 */
export function symbolOf(instrument: string, symbolMap: Readonly<Record<string, string>>): string {
  return symbolMap[instrument] ?? instrument.replace('_', '');
}
