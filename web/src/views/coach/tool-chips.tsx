/** The turn's tool calls as chips: calling (with the arguments), then complete with the result's summary. */
import type { ToolChip } from './chat-turn.js';

const STATUS_LABELS = { calling: 'calling…', complete: 'complete', error: 'failed' } as const;

export function ToolChips({ tools }: { tools: ToolChip[] }) {
  if (tools.length === 0) return null;
  return (
    <ul class="chips coach-tools" aria-label="Tool calls">
      {tools.map((chip, index) => (
        <li key={index} class={`chip coach-tool coach-tool-${chip.status}`} data-testid="tool-chip" data-tool={chip.tool} data-status={chip.status}>
          <span class="coach-tool-name">{chip.tool}</span> <span class="coach-tool-status">{STATUS_LABELS[chip.status]}</span>
          {chip.detail ? <span class="coach-tool-detail">{chip.detail}</span> : null}
        </li>
      ))}
    </ul>
  );
}
