/**
 * The numbered options, one button each (number keys pick them too), plus a field for any move the
 * API accepts by text: a command ("buy Silver"), a number, or an all-or-nothing chain ("1, 2").
 */
import { useState } from 'preact/hooks';
import type { GameOption } from './game-api.js';
import { useNumberKeys } from './use-number-keys.js';

interface OptionsListProps {
  options: GameOption[];
  note: string | null;
  busy: boolean;
  onPick: (option: GameOption) => void;
  onCommand: (command: string) => Promise<boolean>;
}

export function OptionsList({ options, note, busy, onPick, onCommand }: OptionsListProps) {
  const [command, setCommand] = useState('');
  const typed = useNumberKeys(busy ? 0 : options.length, (index) => {
    const option = options.find((o) => o.index === index);
    if (option) onPick(option);
  });

  const submit = async (event: Event) => {
    event.preventDefault();
    const text = command.trim();
    if (text && (await onCommand(text))) setCommand('');
  };

  return (
    <section class="panel dominion-options" aria-labelledby="options-title">
      <h2 id="options-title">Your options</h2>
      <p class="muted">
        Click an option or type its number.
        {typed ? <span class="typed-number" data-testid="typed-number"> Typed: {typed}</span> : null}
      </p>
      <ol class="option-list">
        {options.map((option) => (
          <li key={option.index}>
            <button type="button" data-testid="option" data-option-index={option.index} data-command={option.command} disabled={busy} onClick={() => onPick(option)}>
              <kbd>{option.index}</kbd> {option.description}
            </button>
          </li>
        ))}
      </ol>
      {note ? <p class="muted">{note}</p> : null}
      <form class="row command-form" onSubmit={submit}>
        <div class="command-field">
          <label for="dominion-command">Or type a move</label>
          <input id="dominion-command" type="text" autoComplete="off" spellcheck={false} placeholder="buy Silver, or 1, 2" value={command} onInput={(e) => setCommand(e.currentTarget.value)} />
        </div>
        <button type="submit" class="secondary" disabled={busy || !command.trim()}>
          Send
        </button>
      </form>
    </section>
  );
}
