import type { ConsoleSession } from '@fxdesk/schemas';
import { useState } from 'preact/hooks';
import { ApiError, describeError, type Api } from '../api.js';

interface LoginProps {
  api: Api;
  /** Why the login is asked for again (a session that ended), if it is. */
  notice: string | null;
  onLogin: (session: ConsoleSession) => void;
}

/** The password page: the console needs a login when the desk has CONSOLE_PASSWORD set. */
export function LoginPage({ api, notice, onLogin }: LoginProps) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onLogin(await api.login(password));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'Wrong password.' : describeError(err));
      setPassword('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="panel login-form" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <h1 id="login-title">fxdesk console</h1>
        <p>This desk asks for its console password.</p>
        {notice && <p class="notice">{notice}</p>}
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'login-error' : undefined}
        />
        {error && (
          <p id="login-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || password === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
