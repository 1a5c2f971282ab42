/**
 * The conversation so far: the stored history (GET /conversations/:id), then this page's turns, the last
 * one streaming (its thinking notes, tool chips and text as they arrive). Answers are Markdown.
 */
import { useEffect, useRef } from 'preact/hooks';
import { Markdown } from '../../components/markdown.js';
import type { HistoryEntry } from './coach-api.js';
import type { Turn } from './chat-turn.js';
import { ToolChips } from './tool-chips.js';

function UserMessage({ text }: { text: string }) {
  return (
    <li class="coach-message coach-user">
      <span class="visually-hidden">You said:</span>
      <p>{text}</p>
    </li>
  );
}

function TurnAnswer({ turn }: { turn: Turn }) {
  return (
    <li class="coach-message coach-assistant" data-testid="coach-turn" data-finished={String(turn.finished)} aria-busy={!turn.finished}>
      <span class="visually-hidden">The coach answered:</span>
      {turn.thinking.length ? (
        <details class="coach-thinking">
          <summary>Thinking ({turn.thinking.length})</summary>
          <ul>
            {turn.thinking.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        </details>
      ) : null}
      <ToolChips tools={turn.tools} />
      {turn.text ? <Markdown text={turn.text} class="coach-answer" /> : null}
      {!turn.finished && !turn.text ? <p class="muted">The coach is working…</p> : null}
      {turn.error ? (
        <p class="error" role="alert">
          {turn.error}
        </p>
      ) : null}
    </li>
  );
}

export function Transcript({ history, turns }: { history: HistoryEntry[]; turns: Turn[] }) {
  const list = useRef<HTMLOListElement>(null);
  const last = turns.at(-1);
  // The transcript scrolls (not the page) to bring the latest question to its top as the answer
  // streams in below it, so the answer is read from its beginning.
  useEffect(() => {
    const box = list.current;
    const questions = box?.querySelectorAll<HTMLElement>('.coach-user');
    const latest = questions?.[questions.length - 1];
    if (box && latest) box.scrollTop = latest.offsetTop - 4;
  }, [history.length, turns.length, last?.text.length, last?.tools.length, last?.finished]);
  if (history.length === 0 && turns.length === 0) {
    return <p class="muted coach-empty">Ask about a format's meta, or paste your deck and ask for coaching.</p>;
  }
  return (
    // Focusable so keyboard users can scroll it.
    <ol ref={list} class="coach-transcript" aria-label="Conversation" data-testid="transcript" tabIndex={0}>
      {history.map((entry, index) =>
        entry.role === 'user' ? (
          <UserMessage key={`h${index}`} text={entry.content} />
        ) : (
          <li key={`h${index}`} class="coach-message coach-assistant" data-testid="history-answer">
            <span class="visually-hidden">The coach answered:</span>
            <Markdown text={entry.content} class="coach-answer" />
          </li>
        ),
      )}
      {turns.flatMap((turn, index) => [<UserMessage key={`u${index}`} text={turn.message} />, <TurnAnswer key={`a${index}`} turn={turn} />])}
    </ol>
  );
}
