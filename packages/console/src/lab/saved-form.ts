import type { BacktestForm, SweepForm } from './requests.js';

/** What the Lab form holds between runs: the page opens a run's page, and back on the Lab the trader's inputs are still there. */
export interface SavedForm {
  kind: 'backtest' | 'sweep';
  form: BacktestForm;
  sweep: SweepForm;
  /** Whether the trader picked the pairs (else the form follows the monitored pairs). */
  pairsTouched: boolean;
}

/** Kept per browser tab (sessionStorage): a reload keeps it, a new tab starts afresh. */
const KEY = 'fxdesk.lab-form';

export function loadSavedForm(storage?: Pick<Storage, 'getItem'>): SavedForm | null {
  try {
    // Reading sessionStorage itself throws where the browser refuses storage.
    const saved = JSON.parse((storage ?? sessionStorage).getItem(KEY) ?? 'null') as SavedForm | null;
    return saved && typeof saved === 'object' && saved.form && saved.sweep ? saved : null;
  } catch {
    return null;
  }
}

export function saveForm(saved: SavedForm, storage?: Pick<Storage, 'setItem'>): void {
  try {
    (storage ?? sessionStorage).setItem(KEY, JSON.stringify(saved));
  } catch {
    // storage full or refused (a private window): the form is only not kept
  }
}
