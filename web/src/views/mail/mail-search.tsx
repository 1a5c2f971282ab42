/**
 * Search over your mail (subject, body, addresses), in the open inbox or all of them; each hit links
 * to its thread.
 */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { markdownToSafeHtml } from '../../components/markdown.js';
import { hrefOf } from '../../route.js';
import { searchMail, timeOf, type Inbox, type SearchHit } from './mail-api.js';

const EXCERPT_CHARS = 160;

/** A hit's Markdown as the words a reader sees ("**Bob**" reads "Bob"), shortened. */
function excerptOf(markdown: string): string {
  const text = (new DOMParser().parseFromString(markdownToSafeHtml(markdown), 'text/html').body.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

export function MailSearch({ inboxes, currentInbox }: { inboxes: Inbox[]; currentInbox: string | undefined }) {
  const [query, setQuery] = useState('');
  const [scope, setScope] = useState<'current' | 'all'>('current');
  const [hits, setHits] = useState<{ query: string; results: SearchHit[] } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const addressOf = (inboxId: string) => inboxes.find((i) => i.id === inboxId)?.email_address ?? inboxId;

  const submit = async (event: Event) => {
    event.preventDefault();
    const words = query.trim();
    if (!words) return;
    setBusy(true);
    setError(undefined);
    try {
      const results = await searchMail(words, scope === 'current' ? currentInbox : undefined);
      setHits({ query: words, results });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="mail-search" aria-labelledby="mail-search-title">
      <h2 id="mail-search-title" class="visually-hidden">
        Search mail
      </h2>
      <form class="row" role="search" onSubmit={submit}>
        <div class="mail-search-query">
          <label for="mail-search-query">Search mail</label>
          <input id="mail-search-query" type="search" maxLength={500} value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </div>
        {currentInbox ? (
          <div>
            <label for="mail-search-scope">In</label>
            <select id="mail-search-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value as 'current' | 'all')}>
              <option value="current">this inbox</option>
              <option value="all">all inboxes</option>
            </select>
          </div>
        ) : null}
        <button type="submit" disabled={busy || !query.trim()}>
          {busy ? 'Searching…' : 'Search'}
        </button>
        {hits ? (
          <button type="button" class="secondary" onClick={() => setHits(undefined)}>
            Clear results
          </button>
        ) : null}
      </form>
      <ErrorNote error={error} />
      {hits ? (
        <div class="panel" data-testid="search-results">
          <p role="status">
            {hits.results.length === 0 ? 'Nothing found' : hits.results.length === 1 ? '1 message' : `${hits.results.length} messages`} for “{hits.query}”
          </p>
          <ul class="mail-hits">
            {hits.results.map((hit) => (
              <li key={hit.id} data-message-id={hit.id}>
                <a href={hrefOf('mail', hit.inbox_id, hit.thread_id)}>{hit.subject || '(no subject)'}</a>
                <span class="muted">
                  {' '}
                  · {hit.from} · <time dateTime={hit.created_at}>{timeOf(hit.created_at)}</time>
                  {inboxes.length > 1 ? ` · in ${addressOf(hit.inbox_id)}` : ''}
                </span>
                <p class="mail-hit-excerpt">{excerptOf(hit.content)}</p>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
