/**
 * Account: who you are, your API keys (create, revoke; a new key is shown once) and, per kind, your
 * limits and what you have used of them now. Backed by GET /me, /me/keys, /me/usage.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import type { ViewProps } from '../../main.js';
import { signOut } from '../../session.js';
import { forgetFreshKey, freshKey } from '../../sign-in.js';
import { ScrollBox } from '../../components/scroll-box.js';

interface KeyRow {
  prefix: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  current: boolean;
}

interface KindUsage {
  kind: string;
  rate: { points: number; windowSeconds: number; counts: string; used: number; remaining: number; resetsInSeconds: number } | null;
  concurrent: { limit: number; inUse: number } | null;
}

const day = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

function ShownOnce({ title, apiKey, onDismiss }: { title: string; apiKey: string; onDismiss: () => void }) {
  return (
    <section class="panel" aria-labelledby="new-key-title">
      <h2 id="new-key-title">{title}</h2>
      <p>It is shown only now: keep it somewhere safe.</p>
      <pre data-testid="new-key">{apiKey}</pre>
      <button type="button" onClick={() => navigator.clipboard?.writeText(apiKey)}>
        Copy key
      </button>
      <button type="button" class="secondary" onClick={onDismiss}>
        I have kept it
      </button>
      <p class="muted">
        MCP clients: <code>{location.origin}/mcp</code> with <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
    </section>
  );
}

export function AccountView({ me }: ViewProps) {
  const keys = useAsync(() => api<{ keys: KeyRow[] }>('/me/keys'), []);
  const usage = useAsync(() => api<{ kinds: KindUsage[] }>('/me/usage'), []);
  const [label, setLabel] = useState('');
  const [created, setCreated] = useState<string | undefined>(freshKey);
  const [createdTitle, setCreatedTitle] = useState('Your API key from the login link');
  const [error, setError] = useState<unknown>(undefined);

  const createKey = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const issued = await api<{ key: string }>('/me/keys', { body: { label: label.trim() || 'web' } });
      setCreatedTitle('Your new API key');
      setCreated(issued.key);
      setLabel('');
      keys.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  const revoke = async (row: KeyRow) => {
    const warning = row.current ? ' This is the key this browser is signed in with: you will be signed out.' : '';
    if (!confirm(`Revoke the key ${row.prefix}… (${row.label})?${warning}`)) return;
    setError(undefined);
    try {
      await api(`/me/keys/${encodeURIComponent(row.prefix)}`, { method: 'DELETE' });
      if (row.current) signOut();
      else keys.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{me.name}</strong>
        {me.created_at ? <span class="muted"> · user since {day(me.created_at)}</span> : null}
      </p>
      {created ? (
        <ShownOnce
          title={createdTitle}
          apiKey={created}
          onDismiss={() => {
            forgetFreshKey();
            setCreated(undefined);
          }}
        />
      ) : null}

      <h2>API keys</h2>
      <ErrorNote error={error ?? keys.error} />
      <ScrollBox label="Your API keys">
        <table aria-label="Your API keys">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Label</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {(keys.data?.keys ?? []).map((row) => (
              <tr key={row.prefix} data-key-prefix={row.prefix}>
                <td>
                  <code>{row.prefix}…</code>
                  {row.current ? <span class="muted"> (this browser)</span> : null}
                </td>
                <td>{row.label}</td>
                <td>{day(row.created_at)}</td>
                <td>{row.revoked_at ? `revoked ${day(row.revoked_at)}` : row.expires_at ? `expires ${day(row.expires_at)}` : 'active'}</td>
                <td>
                  {row.revoked_at ? null : (
                    <button type="button" class="danger" onClick={() => revoke(row)} aria-label={`Revoke key ${row.prefix}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      <form class="row" onSubmit={createKey}>
        <div>
          <label for="key-label">Label for a new key</label>
          <input id="key-label" type="text" maxLength={60} value={label} placeholder="web" onInput={(e) => setLabel(e.currentTarget.value)} />
        </div>
        <button type="submit">Create key</button>
      </form>

      <h2>Limits and usage</h2>
      <ErrorNote error={usage.error} />
      <ScrollBox label="Limits and usage">
        <table aria-label="Limits and usage per kind">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col" class="num">Used</th>
              <th scope="col" class="num">Limit</th>
              <th scope="col">Window</th>
              <th scope="col" class="num">In flight</th>
            </tr>
          </thead>
          <tbody>
            {(usage.data?.kinds ?? []).map((row) => (
              <tr key={row.kind} data-kind={row.kind}>
                <th scope="row">{row.kind}</th>
                <td class="num">{row.rate ? `${row.rate.used} ${row.rate.counts}` : '—'}</td>
                <td class="num">{row.rate ? row.rate.points : 'none'}</td>
                <td>{row.rate ? `${row.rate.windowSeconds} s${row.rate.used > 0 ? `, resets in ${row.rate.resetsInSeconds} s` : ''}` : '—'}</td>
                <td class="num">{row.concurrent ? `${row.concurrent.inUse} of ${row.concurrent.limit}` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      <button type="button" class="secondary" onClick={usage.reload}>
        Refresh usage
      </button>
    </>
  );
}
