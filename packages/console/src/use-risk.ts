import type { RiskReport } from '@fxdesk/schemas';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api.js';
import { useDesk } from './use-desk.js';

/** How often the risk is read again: a halt comes with an equity mark, which has no event of its own. */
const POLL_MS = 5000;

export type RiskRead = { state: 'loading' } | { state: 'error'; message: string; report: RiskReport | null } | { state: 'ready'; report: RiskReport };

/** The desk's risk limits, their use and the halt per account (GET /console/risk), read every few seconds and after a resume. */
export function useRisk(): { risk: RiskRead; refresh: () => void } {
  const { api } = useDesk();
  const [risk, setRisk] = useState<RiskRead>({ state: 'loading' });
  const isReading = useRef(false);
  const refresh = useCallback(() => {
    if (isReading.current) return;
    isReading.current = true;
    api
      .risk()
      .then((report) => setRisk({ state: 'ready', report }))
      .catch((err: unknown) => setRisk((shown) => ({ state: 'error', message: describeError(err), report: 'report' in shown ? shown.report : null })))
      .finally(() => (isReading.current = false));
  }, [api]);
  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  return { risk, refresh };
}
