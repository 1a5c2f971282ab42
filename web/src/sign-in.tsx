/**
 * Signing in: a login link (`/?login=TOKEN` from `troupe start` or `troupe login-link`) is traded for
 * a fresh API key at once; otherwise the user pastes a key, which is checked against GET /me.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, api } from './api.js';
import { ErrorNote } from './components/error-note.js';
import { signIn } from './session.js';

/** GET /me. */
export interface Me {
  id: string;
  name: string;
  created_at: string | null;
  /** `admin` opens the queue dashboard. */
  roles: string[];
}

/** A key just minted by a login link: shown once, on the account view. */
export let freshKey: string | undefined;
export function forgetFreshKey(): void {
  freshKey = undefined;
}

/** Trades `?login=` for a key; answers undefined when the URL holds no token. */
export async function signInWithLoginLink(): Promise<'signed-in' | undefined> {
  const params = new URLSearchParams(location.search);
  const token = params.get('login');
  if (!token) return undefined;
  // The token is single use: out of the address bar and history before anything else.
  history.replaceState(null, '', location.pathname + location.hash);
  const response = await fetch('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  const body = (await response.json().catch(() => ({}))) as { apiKey?: string; error?: { message?: string } };
  if (!response.ok || !body.apiKey) {
    throw new ApiFailure(
      response.status,
      'login_failed',
      `${body.error?.message ?? 'the login link did not work'}. Login links work once and for 15 minutes: get a new one with \`npx troupe login-link\`, or paste an API key below.`,
    );
  }
  freshKey = body.apiKey;
  signIn({ apiKey: body.apiKey, remember: false });
  return 'signed-in';
}

export function SignIn({ linkError }: { linkError?: unknown }) {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<unknown>(linkError);
  const [busy, setBusy] = useState(false);
  useEffect(() => setError(linkError), [linkError]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const apiKey = key.trim();
      // Checked before it is kept: a wrong key stays out of storage.
      const response = await fetch('/me', { headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' } });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
        throw new ApiFailure(response.status, 'unauthorized', body.error?.message ?? `the key was refused (${response.status})`);
      }
      signIn({ apiKey, remember });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1>troupe</h1>
      <p>Sign in with the login link that <code>npm start</code> or <code>npx troupe login-link</code> prints, or with an API key.</p>
      <form onSubmit={submit} aria-label="Sign in with an API key">
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autocomplete="current-password" required value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="trp_…" />
        <label class="inline">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} /> Remember me on this device
        </label>
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNote error={error} />
      <p class="muted">
        New keys: <code>npx troupe users create NAME</code>. The key stays in this tab unless you pick "remember me".
      </p>
    </main>
  );
}

export async function loadMe(): Promise<Me> {
  return api<Me>('/me');
}
