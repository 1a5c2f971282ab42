/** The game log: every public line since the game began, newest last, kept scrolled to the end. */
import { useEffect, useRef } from 'preact/hooks';

export function GameLog({ lines }: { lines: string[] }) {
  const list = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = list.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [lines.length]);
  return (
    <section class="panel dominion-log" aria-labelledby="log-title">
      <h2 id="log-title">Log</h2>
      {lines.length === 0 ? <p class="muted">Nothing has happened yet.</p> : null}
      {/* Focusable so keyboard users can scroll it; role log announces new lines politely. */}
      <div ref={list} class="log-lines" role="log" aria-labelledby="log-title" tabIndex={0} data-testid="game-log">
        {lines.length > 0 ? (
          <ol>
            {lines.map((line, i) => (
              <li key={i} data-testid="log-line">
                {line}
              </li>
            ))}
          </ol>
        ) : null}
      </div>
    </section>
  );
}
