/**
 * The shell: sign-in, the navigation between views, and the views themselves, each loaded on first
 * visit (its own chunk) so the first page carries only the shell. The app talks to troupe only
 * through the public HTTP and SSE API, as any other web client would.
 */
import './styles.css';
import { Component, render, type ComponentChildren, type ComponentType } from 'preact';
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { messageOf, request } from './api.js';
import { ErrorNote } from './components/error-note.js';
import { hrefOf, useRoute, type ViewName } from './route.js';
import { currentSession, onSessionChange, signOut, type Session } from './session.js';
import { loadMe, SignIn, signInWithLoginLink, type Me } from './sign-in.js';

/** Every view gets the signed-in user and the route's path segments after its name. */
export interface ViewProps {
  me: Me;
  parts: string[];
}

const VIEW_LABELS: Record<ViewName, string> = {
  dominion: 'Dominion',
  meta: 'MTG meta',
  coach: 'Deck coach',
  scouting: 'Scouting',
  mail: 'Mail',
  account: 'Account',
};

const VIEWS: Record<ViewName, ComponentType<ViewProps>> = {
  dominion: lazy(() => import('./views/dominion/dominion-view.js').then((m) => m.DominionView)),
  meta: lazy(() => import('./views/meta/meta-view.js').then((m) => m.MetaView)),
  coach: lazy(() => import('./views/coach/coach-view.js').then((m) => m.CoachView)),
  scouting: lazy(() => import('./views/scouting/scouting-view.js').then((m) => m.ScoutingView)),
  mail: lazy(() => import('./views/mail/mail-view.js').then((m) => m.MailView)),
  account: lazy(() => import('./views/account/account-view.js').then((m) => m.AccountView)),
};

function useSession(): Session | undefined {
  const [session, setSession] = useState(currentSession);
  useEffect(() => onSessionChange(setSession), []);
  return session;
}

function App() {
  const session = useSession();
  const route = useRoute();
  const [linkError, setLinkError] = useState<unknown>(undefined);
  const [linkPending, setLinkPending] = useState(() => new URLSearchParams(location.search).has('login'));
  const [me, setMe] = useState<Me | undefined>(undefined);
  const [meError, setMeError] = useState<unknown>(undefined);

  useEffect(() => {
    if (!linkPending) return;
    signInWithLoginLink()
      .catch((error: unknown) => setLinkError(error))
      .finally(() => setLinkPending(false));
  }, []);

  useEffect(() => {
    setMe(undefined);
    setMeError(undefined);
    if (!session) return;
    loadMe().then(setMe, setMeError);
  }, [session?.apiKey]);

  useEffect(() => {
    document.title = session ? `${VIEW_LABELS[route.view]} · troupe` : 'Sign in · troupe';
  }, [route.view, session]);

  if (linkPending) return <p class="page-status" role="status">Signing you in…</p>;
  if (!session) return <SignIn linkError={linkError} />;
  if (!me) {
    return meError ? (
      <main class="sign-in" id="main">
        <ErrorNote error={meError} />
        <button type="button" onClick={() => location.reload()}>Try again</button>
      </main>
    ) : (
      <p class="page-status" role="status">Loading…</p>
    );
  }

  const View = VIEWS[route.view];
  return (
    <>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">troupe</span>
        <nav aria-label="Views">
          <ul>
            {(Object.keys(VIEW_LABELS) as ViewName[]).map((name) => (
              <li key={name}>
                <a href={hrefOf(name)} aria-current={route.view === name ? 'page' : undefined}>
                  {VIEW_LABELS[name]}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {me.roles.includes('admin') ? <QueueDashboardLink /> : null}
          <span class="muted">Signed in as</span> <strong data-testid="user-name">{me.name}</strong>
          <button type="button" class="link-button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p role="status">Loading {VIEW_LABELS[route.view]}…</p>}>
          <ViewBoundary key={route.view}>
            <View me={me} parts={route.parts} />
          </ViewBoundary>
        </Suspense>
      </main>
    </>
  );
}

/**
 * Admins only: the queue dashboard is a page of its own that a browser reaches with a cookie, so the key
 * is traded for an admin session first (POST /admin/session), then the dashboard opens in a new tab.
 */
function QueueDashboardLink() {
  const [error, setError] = useState<unknown>(undefined);
  const open = async () => {
    setError(undefined);
    try {
      await request('/admin/session', { method: 'POST' });
      window.open('/admin/queues', '_blank', 'noopener');
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <>
      <button type="button" class="link-button" onClick={open}>
        Queues
      </button>
      {error ? <span class="error" role="alert">{messageOf(error)}</span> : null}
    </>
  );
}

/** A view that throws shows its error instead of blanking the page. */
class ViewBoundary extends Component<{ children: ComponentChildren }, { error?: unknown }> {
  override state: { error?: unknown } = {};
  override componentDidCatch(error: unknown) {
    // Lazy chunks throw promises while loading; Suspense handles those.
    if (error instanceof Promise) throw error;
    this.setState({ error });
  }
  override render() {
    if (this.state.error !== undefined) return <p class="error" role="alert">This view failed: {messageOf(this.state.error)}</p>;
    return this.props.children;
  }
}

render(<App />, document.getElementById('app')!);
