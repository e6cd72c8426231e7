import type { LabDefaults, RankMetric, Timeframe } from '@fxdesk/schemas';
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from '../api.js';
import { pairLabel } from '../format.js';
import { metricLabel, RANK_METRICS } from '../lab/metrics.js';
import {
  backtestRequest,
  defaultBacktestForm,
  defaultSweepForm,
  gridOf,
  MAX_INSTRUMENTS,
  MAX_SETTINGS,
  sweepRequest,
  type BacktestForm,
  type Problem,
  type SweepForm,
  type VolumeMode,
} from '../lab/requests.js';
import { EXIT_RULES, formatRuleValue, RISK_RULES, SIGNAL_RULES, type RuleSpec } from '../lab/rules.js';
import { loadSavedForm, saveForm } from '../lab/saved-form.js';
import { TIMEFRAMES } from '../market-time.js';
import { navigate } from '../router.js';
import { backtestHref, sweepHref } from '../routes.js';
import { useDesk } from '../use-desk.js';

type Kind = 'backtest' | 'sweep';

/** What the service refused, field by field (422 details), else its message. */
function refusal(err: unknown): Problem[] {
  if (err instanceof ApiError && err.details.length > 0)
    return err.details.map((d) => ({ field: d.path, message: `${d.path.replace(/^body\./, '')}: ${d.message}` }));
  return [{ field: '', message: describeError(err) }];
}

/** What a backtest takes for the settings left empty (GET /lab/defaults), null until read or when it cannot be. */
function useLabDefaults(): LabDefaults | null {
  const { api } = useDesk();
  const [defaults, setDefaults] = useState<LabDefaults | null>(null);
  useEffect(() => {
    let cancelled = false;
    api
      .labDefaults()
      .then((answer) => !cancelled && setDefaults(answer))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [api]);
  return defaults;
}

/** Starts a backtest or a sweep from the monitored pairs; opens its page once the service took it. */
export function LabForm({ instruments, timeframe }: { instruments: string[]; timeframe: Timeframe }) {
  const { api } = useDesk();
  const [saved] = useState(loadSavedForm);
  const [kind, setKind] = useState<Kind>(saved?.kind ?? 'backtest');
  const [form, setForm] = useState<BacktestForm>(() => saved?.form ?? defaultBacktestForm(instruments, timeframe, Date.now()));
  const [sweep, setSweep] = useState<SweepForm>(() => saved?.sweep ?? defaultSweepForm());
  const [problems, setProblems] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);
  const defaults = useLabDefaults();
  const grid = useMemo(() => gridOf(sweep), [sweep]);
  // Until a pair is ticked or unticked, the form takes every monitored pair as the desk learns them.
  const pairsTouched = useRef(saved?.pairsTouched ?? false);
  useEffect(() => {
    if (!pairsTouched.current) setForm((f) => ({ ...f, instruments: instruments.slice(0, MAX_INSTRUMENTS) }));
  }, [instruments.join(',')]);
  useEffect(() => saveForm({ kind, form, sweep, pairsTouched: pairsTouched.current }), [kind, form, sweep]);

  const edit = (patch: Partial<BacktestForm>) => setForm((f) => ({ ...f, ...patch }));
  const editSweep = (patch: Partial<SweepForm>) => setSweep((s) => ({ ...s, ...patch }));
  const hasProblem = (field: string) => problems.some((p) => p.field === field || p.field.endsWith(`.${field}`));
  const pairs = [...new Set([...instruments, ...form.instruments])];

  const submit = async (event: Event) => {
    event.preventDefault();
    const now = Date.now();
    let start: () => Promise<string>;
    if (kind === 'backtest') {
      const built = backtestRequest(form, now);
      if (!built.ok) return setProblems(built.problems);
      start = async () => backtestHref((await api.startBacktest(built.body)).id);
    } else {
      const built = sweepRequest(form, sweep, now);
      if (!built.ok) return setProblems(built.problems);
      start = async () => sweepHref((await api.startSweep(built.body)).id);
    }
    setProblems([]);
    setBusy(true);
    try {
      navigate(await start());
    } catch (err) {
      setProblems(refusal(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel lab-form" onSubmit={(e) => void submit(e)} aria-labelledby="new-run-title" noValidate>
      <h2 id="new-run-title">New run</h2>
      <div role="radiogroup" aria-label="Run" class="timeframes">
        {(['backtest', 'sweep'] as const).map((k) => (
          <label key={k} class={k === kind ? 'checked' : ''}>
            <input type="radio" name="kind" value={k} checked={k === kind} onChange={() => setKind(k)} />
            {k === 'backtest' ? 'Backtest' : 'Sweep'}
          </label>
        ))}
      </div>

      <fieldset class="pairs-pick" aria-invalid={hasProblem('instruments')}>
        <legend>
          Pairs <span class="muted">(1 to {MAX_INSTRUMENTS})</span>
        </legend>
        {pairs.length === 0 && <p class="empty">No monitored pair: start the strategy on some first.</p>}
        {pairs.map((i) => (
          <label key={i} class="check">
            <input
              type="checkbox"
              name="instruments"
              value={i}
              checked={form.instruments.includes(i)}
              onChange={(e) => {
                pairsTouched.current = true;
                edit({ instruments: e.currentTarget.checked ? [...form.instruments, i] : form.instruments.filter((x) => x !== i) });
              }}
            />
            {pairLabel(i)}
          </label>
        ))}
      </fieldset>

      <div class="fields">
        <label>
          Timeframe
          <select name="timeframe" value={form.timeframe} onChange={(e) => edit({ timeframe: e.currentTarget.value as Timeframe })}>
            {TIMEFRAMES.map((tf) => (
              <option key={tf} value={tf}>
                {tf}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" name="from" value={form.from} aria-invalid={hasProblem('from')} onInput={(e) => edit({ from: e.currentTarget.value })} />
        </label>
        <label>
          To <span class="muted">(exclusive)</span>
          <input type="date" name="to" value={form.to} aria-invalid={hasProblem('to')} onInput={(e) => edit({ to: e.currentTarget.value })} />
        </label>
        <label>
          Name <span class="muted">(optional)</span>
          <input type="text" name="name" maxLength={100} value={form.name} onInput={(e) => edit({ name: e.currentTarget.value })} />
        </label>
      </div>

      <fieldset class="rules">
        <legend>Rules: empty keeps the strategy's own{kind === 'sweep' ? '; values to try like 8, 10, 12 or 8..14 by 2' : ''}</legend>
        {SIGNAL_RULES.map((rule) => (
          <RuleRow
            key={rule.key}
            rule={rule}
            kind={kind}
            form={form}
            sweep={sweep}
            defaults={defaults}
            hasProblem={hasProblem}
            edit={edit}
            editSweep={editSweep}
          />
        ))}
      </fieldset>

      <fieldset class="rules exits">
        <legend>Exit rules: 0 is off; empty keeps the strategy's own (shown){kind === 'sweep' ? '; values to try like 0, 1, 2' : ''}</legend>
        {EXIT_RULES.map((rule) => (
          <RuleRow
            key={rule.key}
            rule={rule}
            kind={kind}
            form={form}
            sweep={sweep}
            defaults={defaults}
            hasProblem={hasProblem}
            edit={edit}
            editSweep={editSweep}
          />
        ))}
      </fieldset>

      <fieldset class="rules risk">
        <legend>
          Risk: risk per trade sizes by risk (0: fixed lots, the Size below); each limit 0 is off; empty keeps the strategy's own (shown); one position per pair
          always{kind === 'sweep' ? '; values to try like 0.5, 1, 2' : ''}
        </legend>
        {RISK_RULES.map((rule) => (
          <RuleRow
            key={rule.key}
            rule={rule}
            kind={kind}
            form={form}
            sweep={sweep}
            defaults={defaults}
            hasProblem={hasProblem}
            edit={edit}
            editSweep={editSweep}
          />
        ))}
      </fieldset>

      {kind === 'sweep' && (
        <fieldset class="fields">
          <legend>
            Sweep: {grid.count} {grid.count === 1 ? 'setting' : 'settings'} <span class="muted">(at most {MAX_SETTINGS})</span>
          </legend>
          <label>
            Rank by
            <select name="rank_by" value={sweep.rankBy} onChange={(e) => editSweep({ rankBy: e.currentTarget.value as RankMetric })}>
              {RANK_METRICS.map((m) => (
                <option key={m} value={m}>
                  {metricLabel(m)}
                </option>
              ))}
            </select>
          </label>
          <label class="check">
            <input type="checkbox" name="walk_forward" checked={sweep.walkForward} onChange={(e) => editSweep({ walkForward: e.currentTarget.checked })} />
            Walk-forward
          </label>
          {sweep.walkForward && (
            <>
              <label>
                Windows <span class="muted">(1–20)</span>
                <input
                  type="number"
                  name="windows"
                  min={1}
                  max={20}
                  step={1}
                  value={sweep.windows}
                  onInput={(e) => editSweep({ windows: e.currentTarget.value })}
                />
              </label>
              <label>
                In-sample % <span class="muted">(50–90)</span>
                <input
                  type="number"
                  name="in_sample_percent"
                  min={50}
                  max={90}
                  step={1}
                  value={sweep.inSamplePercent}
                  onInput={(e) => editSweep({ inSamplePercent: e.currentTarget.value })}
                />
              </label>
            </>
          )}
        </fieldset>
      )}

      <details class="fills">
        <summary>Balance and fills</summary>
        <div class="fields">
          <AmountField
            label={<>Initial balance {defaults && <span class="muted">({defaults.account_currency})</span>}</>}
            name="initial_balance"
            placeholder={defaults ? String(defaults.initial_balance) : ''}
            value={form.initialBalance}
            onInput={(initialBalance) => edit({ initialBalance })}
          />
          <AmountField
            label="Spread (points)"
            name="spread_points"
            placeholder="the candles' own"
            value={form.spreadPoints}
            onInput={(spreadPoints) => edit({ spreadPoints })}
          />
          <AmountField
            label="Slippage (points)"
            name="slippage_points"
            placeholder="0"
            value={form.slippagePoints}
            onInput={(slippagePoints) => edit({ slippagePoints })}
          />
          <AmountField
            label="Commission a lot"
            name="commission_per_lot"
            placeholder="0"
            value={form.commissionPerLot}
            onInput={(commissionPerLot) => edit({ commissionPerLot })}
          />
          <label>
            Size
            <select name="volume_mode" value={form.volumeMode} onChange={(e) => edit({ volumeMode: e.currentTarget.value as VolumeMode })}>
              <option value="default">{defaults ? `${defaults.volume_lots} lots` : "the desk's lots"}</option>
              <option value="lots">fixed lots</option>
            </select>
          </label>
          {form.volumeMode !== 'default' && (
            <AmountField label="Lots" name="volume" placeholder="" value={form.volume} onInput={(volume) => edit({ volume })} />
          )}
        </div>
      </details>

      {problems.length > 0 && (
        <ul class="problems error" role="alert" aria-label="What to fix">
          {problems.map((p, i) => (
            <li key={i}>{p.message}</li>
          ))}
        </ul>
      )}
      <button type="submit" disabled={busy}>
        {busy ? 'Starting…' : kind === 'backtest' ? 'Start backtest' : 'Start sweep'}
      </button>
    </form>
  );
}

interface RuleRowProps {
  rule: RuleSpec;
  kind: Kind;
  form: BacktestForm;
  sweep: SweepForm;
  defaults: LabDefaults | null;
  hasProblem: (field: string) => boolean;
  edit: (patch: Partial<BacktestForm>) => void;
  editSweep: (patch: Partial<SweepForm>) => void;
}

/** One rule setting: its value for a backtest (empty: the strategy's own, shown greyed), and for a sweep the values to try. */
function RuleRow({ rule, kind, form, sweep, defaults, hasProblem, edit, editSweep }: RuleRowProps) {
  const own = defaults ? formatRuleValue(rule, defaults.rules[rule.key]) : '';
  const setValue = (value: string) => edit({ rules: { ...form.rules, [rule.key]: value } });
  const isSwitch = rule.min === 0 && rule.max === 1 && rule.isInteger;
  return (
    <div class="rule">
      <label>
        {rule.label}{' '}
        {!isSwitch && (
          <span class="muted">
            ({rule.min}–{rule.max})
          </span>
        )}
        {isSwitch ? (
          <select
            name={`rules.${rule.key}`}
            value={form.rules[rule.key] ?? ''}
            aria-invalid={hasProblem(`rules.${rule.key}`)}
            onChange={(e) => setValue(e.currentTarget.value)}
          >
            <option value="">the strategy's{own ? ` (${own})` : ''}</option>
            <option value="0">off</option>
            <option value="1">on</option>
          </select>
        ) : (
          <input
            type="number"
            name={`rules.${rule.key}`}
            min={rule.min}
            max={rule.max}
            step={rule.isInteger ? 1 : 'any'}
            inputMode={rule.isInteger ? 'numeric' : 'decimal'}
            placeholder={own}
            value={form.rules[rule.key] ?? ''}
            aria-invalid={hasProblem(`rules.${rule.key}`)}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        )}
      </label>
      {kind === 'sweep' && (
        <label>
          Try <span class="visually-hidden">{rule.label}</span>
          <input
            type="text"
            name={`grid.${rule.key}`}
            placeholder="—"
            value={sweep.grid[rule.key] ?? ''}
            aria-invalid={hasProblem(`grid.${rule.key}`)}
            onInput={(e) => editSweep({ grid: { ...sweep.grid, [rule.key]: e.currentTarget.value } })}
          />
        </label>
      )}
    </div>
  );
}

/** A label over a number input of 0 or more, any decimals; the text is kept as typed. */
function AmountField(props: { label: ComponentChildren; name: string; placeholder: string; value: string; onInput: (value: string) => void }) {
  return (
    <label>
      {props.label}
      <input
        type="number"
        name={props.name}
        min={0}
        step="any"
        placeholder={props.placeholder}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </label>
  );
}
