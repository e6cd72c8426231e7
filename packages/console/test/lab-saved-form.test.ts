import { describe, expect, it } from 'vitest';
import { defaultBacktestForm, defaultSweepForm } from '../src/lab/requests.js';
import { loadSavedForm, saveForm } from '../src/lab/saved-form.js';
import { NOW } from './fixtures.js';

/** A storage as the browser's sessionStorage holds text. */
function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> {
  const items = new Map<string, string>();
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) };
}

describe("the Lab form's inputs between runs", () => {
  it('reads back the pairs, dates and sweep the trader left', () => {
    const storage = memoryStorage();
    const form = { ...defaultBacktestForm(['EUR_USD', 'GBP_USD'], 'M15', NOW), instruments: ['GBP_USD'], from: '2026-01-05', to: '2026-02-02' };
    const sweep = { ...defaultSweepForm(), grid: { min_confluence: '2, 3' } };
    saveForm({ kind: 'sweep', form, sweep, pairsTouched: true }, storage);
    expect(loadSavedForm(storage)).toEqual({ kind: 'sweep', form, sweep, pairsTouched: true });
  });

  it('starts afresh from nothing kept or from what is not a form', () => {
    const storage = memoryStorage();
    expect(loadSavedForm(storage)).toBeNull();
    storage.setItem('fxdesk.lab-form', '{not json');
    expect(loadSavedForm(storage)).toBeNull();
    storage.setItem('fxdesk.lab-form', '{"kind":"backtest"}');
    expect(loadSavedForm(storage)).toBeNull();
  });
});
