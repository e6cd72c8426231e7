import type { StrategyStatus } from '@fxdesk/schemas';
import type { AccountView } from '../desk-state.js';
import { formatAgo, formatMoney } from '../format.js';
import { useNow } from '../use-desk.js';

interface Figures {
  balance: string | number;
  equity: string | number;
  marginUsed: string | number;
  marginAvailable: string | number;
  currency: string;
}

function FigureList({ figures }: { figures: Figures }) {
  return (
    <dl class="facts money">
      <div>
        <dt>Balance</dt>
        <dd>{formatMoney(figures.balance, figures.currency)}</dd>
      </div>
      <div>
        <dt>Equity</dt>
        <dd>{formatMoney(figures.equity, figures.currency)}</dd>
      </div>
      <div>
        <dt>Margin used</dt>
        <dd>{formatMoney(figures.marginUsed, figures.currency)}</dd>
      </div>
      <div>
        <dt>Margin available</dt>
        <dd>{formatMoney(figures.marginAvailable, figures.currency)}</dd>
      </div>
    </dl>
  );
}

/** Balance, equity and margin: the account service's read through the strategy, else the paper account. */
export function AccountPanel({ account, status }: { account: AccountView; status: StrategyStatus | null }) {
  const now = useNow(5000);
  const paper = status?.paper_account;
  let body;
  if (account.state === 'loading') {
    body = <p class="muted">Reading the account…</p>;
  } else if (account.state === 'ok' || (account.state === 'error' && account.last)) {
    const read = account.state === 'ok' ? account.read : account.last;
    if (!read) return null;
    const a = read.account;
    body = (
      <>
        <FigureList figures={{ balance: a.balance, equity: a.nav, marginUsed: a.marginUsed, marginAvailable: a.marginAvailable, currency: a.currency }} />
        <p class="note">
          Account {a.id}
          {a.alias ? ` (${a.alias})` : ''} · {a.openPositionCount} open positions · unrealized P/L {formatMoney(a.unrealizedPL, a.currency)} · as of{' '}
          {formatAgo(a.asOf, now)}
        </p>
        {account.state === 'error' && (
          <p class="error" role="alert">
            Last known values: the account cannot be read now ({account.message}).
          </p>
        )}
      </>
    );
  } else if (account.state === 'not_configured') {
    body = (
      <>
        {paper && (
          <FigureList
            figures={{ balance: paper.balance, equity: paper.equity, marginUsed: paper.margin_used, marginAvailable: paper.margin_available, currency: '' }}
          />
        )}
        <p class="note">The paper account (no account service configured): dry runs trade it.</p>
      </>
    );
  } else {
    body = (
      <p class="error" role="alert">
        The account cannot be read: {account.message}
      </p>
    );
  }
  return (
    <section class="panel account" aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      {body}
    </section>
  );
}
