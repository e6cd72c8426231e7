import type { AccountRisk, JournalAccount } from '@fxdesk/schemas';
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { formatMoney, formatWhen } from '../format.js';
import { useDesk, useNow } from '../use-desk.js';
import { useRisk } from '../use-risk.js';

const percent = (v: number | null) => (v === null ? '—' : `${v.toFixed(2)} %`);
const off = (limit: number | null, show: (v: number) => string) => (limit === null ? 'off' : show(limit));

/** One limit: its use now beside what it allows (a switch has no figure beside it). */
function Limit({ name, use, limit }: { name: string; use: string; limit?: string }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>
        {use}
        {limit !== undefined && <span class="muted"> / {limit}</span>}
      </dd>
    </div>
  );
}

function AccountLimits({ account }: { account: AccountRisk }) {
  const now = useNow(10_000);
  const { open_trades: trades, exposure, daily_loss: day, drawdown, cooldown } = account;
  const exposed = exposure.by_currency.map((c) => `${c.currency} ${c.net_lots > 0 ? '+' : ''}${c.net_lots}`).join(', ') || 'none';
  return (
    <dl class="facts risk-limits">
      <Limit name="Open trades" use={String(trades.open)} limit={off(trades.limit, String)} />
      <Limit name="One position per pair" use={trades.one_per_pair ? 'on' : 'off'} />
      <Limit name="Exposure (net lots)" use={exposed} limit={off(exposure.limit_lots, (v) => `${v} lots`)} />
      <Limit
        name={`Day's loss${day.day ? ` (${day.day})` : ''}`}
        use={`${formatMoney(day.loss)} (${percent(day.loss_percent)})`}
        limit={off(day.limit_percent, (v) => `${v} %`)}
      />
      <Limit
        name="Drawdown"
        use={`${formatMoney(drawdown.drawdown)} (${percent(drawdown.drawdown_percent)})`}
        limit={off(drawdown.limit_percent, (v) => `${v} %`)}
      />
      <Limit
        name="Cooldown"
        use={cooldown.active ? `until ${formatWhen(cooldown.until, now)}` : `${cooldown.losses_in_a_row} losses in a row`}
        limit={cooldown.after_losses === null ? 'off' : `${cooldown.after_losses} losses → ${cooldown.candles} candles`}
      />
    </dl>
  );
}

/** Resumes a halted account, once a person has confirmed it. */
function ResumeButton({ account, onSettled }: { account: JournalAccount; onSettled: () => void }) {
  const { api } = useDesk();
  const [isConfirming, setConfirming] = useState(false);
  const [step, setStep] = useState<{ step: 'idle' } | { step: 'sending' } | { step: 'error'; text: string }>({ step: 'idle' });
  const resume = async () => {
    setStep({ step: 'sending' });
    try {
      await api.resumeRisk(account);
      setStep({ step: 'idle' });
      setConfirming(false);
    } catch (err) {
      setStep({ step: 'error', text: describeError(err) });
    }
    onSettled();
  };
  return (
    <div class="resume">
      {isConfirming ? (
        <div class="confirm" role="group" aria-label={`Confirm the resume of the ${account} account`}>
          <p>Resume the {account} account? New entries go out again; its day and peak start again from its equity now.</p>
          <button type="button" disabled={step.step === 'sending'} onClick={() => void resume()}>
            {step.step === 'sending' ? 'Resuming…' : 'Resume trading'}
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)} aria-label={`Resume the ${account} account`}>
          Resume
        </button>
      )}
      {step.step === 'error' && (
        <p class="error" role="alert">
          Resume: {step.text}
        </p>
      )}
    </div>
  );
}

function AccountRiskView({ account, onSettled }: { account: AccountRisk; onSettled: () => void }) {
  const now = useNow(10_000);
  return (
    <div class="risk-account" data-account={account.account}>
      <h3>
        {account.account === 'live' ? 'Live' : 'Paper'} {account.halted ? <span class="badge bad">halted</span> : <span class="badge ok">trading</span>}
      </h3>
      {account.halt && (
        <div class="halt" role="alert">
          <p>
            Halted {formatWhen(account.halt.at, now)} by {account.halt.reason === 'daily_loss_limit' ? 'the daily loss limit' : 'the maximum drawdown'}:{' '}
            {account.halt.detail}. No new entry until a person resumes it.
          </p>
          <ResumeButton account={account.account} onSettled={onSettled} />
        </div>
      )}
      <AccountLimits account={account} />
      <p class="note">Equity {account.equity ? `${formatMoney(account.equity.value)} at ${formatWhen(account.equity.at, now)}` : 'not marked yet'}</p>
    </div>
  );
}

/** The desk's risk: each account's limits beside their use, its halt with the reason, and a Resume behind a confirmation. */
export function RiskPanel() {
  const { risk, refresh } = useRisk();
  const report = 'report' in risk ? risk.report : null;
  return (
    <section class="panel risk" aria-labelledby="risk-title">
      <header class="panel-head">
        <h2 id="risk-title">Risk</h2>
        {report?.halt_flatten && <span class="note">A halt also flattens the account (HALT_FLATTEN)</span>}
      </header>
      {risk.state === 'loading' && (
        <p class="loading" role="status">
          Reading the risk…
        </p>
      )}
      {risk.state === 'error' && (
        <p class="error" role="alert">
          The risk cannot be read: {risk.message}.{report && ' Shown as last read.'}
        </p>
      )}
      {report?.accounts.map((account) => (
        <AccountRiskView key={account.account} account={account} onSettled={refresh} />
      ))}
    </section>
  );
}
