import type { ConsoleSession } from '@fxdesk/schemas';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, describeError } from './api.js';
import { Banners } from './components/banners.js';
import { ActivityPage } from './pages/activity.js';
import { BacktestPage } from './pages/backtest.js';
import { DeskPage } from './pages/desk.js';
import { LabPage } from './pages/lab.js';
import { LoginPage } from './pages/login.js';
import { PairPage } from './pages/pair.js';
import { PositionsPage } from './pages/positions.js';
import { SweepPage } from './pages/sweep.js';
import { Link, useRoute } from './router.js';
import { routeHref, type Route } from './routes.js';
import { DeskContext, useDesk, useDeskConnection } from './use-desk.js';

type Session =
  { state: 'loading' } | { state: 'unreachable'; message: string } | { state: 'login'; notice: string | null } | { state: 'ready'; session: ConsoleSession };

/** The console: the session gate, then the desk's pages. */
export function App() {
  const api = useMemo(() => new Api(), []);
  const [session, setSession] = useState<Session>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);

  const accept = (s: ConsoleSession) => {
    api.csrfToken = s.csrf_token;
    setSession(s.login_required && !s.authenticated ? { state: 'login', notice: null } : { state: 'ready', session: s });
  };

  useEffect(() => {
    api.onUnauthorized = () => setSession({ state: 'login', notice: 'The session ended: sign in again.' });
    api
      .session()
      .then(accept)
      .catch((err: unknown) => setSession({ state: 'unreachable', message: describeError(err) }));
  }, [api, attempt]);

  switch (session.state) {
    case 'loading':
      return (
        <p class="loading page" role="status">
          Connecting to the desk…
        </p>
      );
    case 'unreachable':
      return (
        <main class="login">
          <div class="panel" role="alert">
            <h1>The desk is not answering</h1>
            <p>The strategy service could not be reached: {session.message}.</p>
            <button type="button" onClick={() => setAttempt((n) => n + 1)}>
              Try again
            </button>
          </div>
        </main>
      );
    case 'login':
      return <LoginPage api={api} notice={session.notice} onLogin={accept} />;
    case 'ready':
      return (
        <Console api={api} session={session.session} onLogout={() => void api.logout().finally(() => setSession({ state: 'login', notice: 'Signed out.' }))} />
      );
  }
}

function Console({ api, session, onLogout }: { api: Api; session: ConsoleSession; onLogout: () => void }) {
  const desk = useDeskConnection(api);
  const route = useRoute();
  return (
    <DeskContext.Provider value={desk}>
      <Header route={route} loginRequired={session.login_required} onLogout={onLogout} />
      <Banners />
      <main id="main">
        <Page route={route} />
      </main>
    </DeskContext.Provider>
  );
}

function Header({ route, loginRequired, onLogout }: { route: Route; loginRequired: boolean; onLogout: () => void }) {
  const { state } = useDesk();
  const live = state.connection === 'live';
  return (
    <header class="top">
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <span class="brand">fxdesk</span>
      <nav aria-label="Pages">
        <Link href={routeHref({ page: 'desk' })} aria-current={route.page === 'desk' ? 'page' : undefined}>
          Desk
        </Link>
        <Link href={routeHref({ page: 'activity', tab: 'signals' })} aria-current={route.page === 'activity' ? 'page' : undefined}>
          Activity
        </Link>
        <Link href={routeHref({ page: 'positions' })} aria-current={route.page === 'positions' ? 'page' : undefined}>
          Positions
        </Link>
        <Link href={routeHref({ page: 'lab' })} aria-current={route.page === 'lab' || route.page === 'backtest' || route.page === 'sweep' ? 'page' : undefined}>
          Lab
        </Link>
      </nav>
      <span class={`live ${live ? 'on' : 'off'}`} role="status" aria-label={live ? 'Live updates on' : 'Live updates interrupted'}>
        <span class="dot" aria-hidden="true" />
        {live ? 'Live' : state.connection === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
      </span>
      {loginRequired && (
        <button type="button" class="secondary" onClick={onLogout}>
          Sign out
        </button>
      )}
    </header>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'desk':
      return <DeskPage />;
    case 'pair':
      return <PairPage instrument={route.instrument} timeframe={route.timeframe} signalId={route.signalId} />;
    case 'activity':
      return <ActivityPage tab={route.tab} />;
    case 'positions':
      return <PositionsPage />;
    case 'lab':
      return <LabPage />;
    case 'backtest':
      return <BacktestPage id={route.id} instrument={route.instrument} />;
    case 'sweep':
      return <SweepPage id={route.id} x={route.x} y={route.y} />;
    case 'not_found':
      return (
        <div class="panel">
          <h1>No such page</h1>
          <p>
            Nothing lives at {route.path}. <Link href={routeHref({ page: 'desk' })}>Go to the desk</Link>.
          </p>
        </div>
      );
  }
}
