import { AccountPanel } from '../components/account-panel.js';
import { NoSignal } from '../components/no-signal.js';
import { PairsGrid } from '../components/pairs-grid.js';
import { RiskPanel } from '../components/risk-panel.js';
import { ServicesPanel } from '../components/services-panel.js';
import { SignalTable } from '../components/signal-table.js';
import { StrategyPanel } from '../components/strategy-panel.js';
import { pairList } from '../desk-state.js';
import { Link } from '../router.js';
import { routeHref } from '../routes.js';
import { serviceViews } from '../service-health.js';
import { useDesk } from '../use-desk.js';

const RECENT = 8;

/** The desk: the strategy and its controls, every pair, the latest signals, the account, the risk and the services. */
export function DeskPage() {
  const { state } = useDesk();
  // Only a whole snapshot is shown: until one is read, the banner says why and when it is read again.
  if (state.snapshotAt === null || !state.status) {
    return state.loadError ? null : (
      <p class="loading" role="status">
        Reading the desk…
      </p>
    );
  }
  const recent = state.signals.slice(0, RECENT);
  return (
    <div class="desk">
      <StrategyPanel status={state.status} />
      <PairsGrid pairs={pairList(state)} profiles={state.profiles} />
      <section class="panel recent" aria-labelledby="recent-title">
        <header class="panel-head">
          <h2 id="recent-title">Latest signals</h2>
          <Link href={routeHref({ page: 'activity', tab: 'signals' })}>All activity</Link>
        </header>
        {recent.length > 0 ? <SignalTable signals={recent} label="Latest signals" /> : <NoSignal />}
      </section>
      <AccountPanel account={state.account} status={state.status} />
      <RiskPanel />
      <ServicesPanel views={serviceViews(state.status, state.services)} />
    </div>
  );
}
