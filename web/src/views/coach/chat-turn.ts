/**
 * One chat turn as the view shows it, folded from the POST /chat event stream: `metadata` names the
 * conversation, `thinking` notes, `tool_call` calling → complete (or error) as chips, `content`
 * chunks appended as they arrive, `state` for the state bar, then `done` (or `error`).
 */
import type { StreamEvent } from '../../sse.js';
import type { CoachState } from './coach-api.js';

export type ToolStatus = 'calling' | 'complete' | 'error';

export interface ToolChip {
  tool: string;
  status: ToolStatus;
  /** The arguments while calling; the result's summary (or the error) once finished. */
  detail: string;
}

export interface Turn {
  message: string;
  conversationId?: string;
  thinking: string[];
  tools: ToolChip[];
  text: string;
  state?: CoachState;
  /** Format and archetype as the turn starts (metadata), before the final `state`. */
  metadata?: { format: string | null; archetype: string | null };
  finished: boolean;
  error?: string;
}

/** What POST /chat takes besides the message: only what the user set, never a default. */
export interface ChatContext {
  format?: string;
  current_days?: number;
  previous_days?: number;
  archetype?: string;
  deck_text?: string;
}

export const newTurn = (message: string): Turn => ({ message, thinking: [], tools: [], text: '', finished: false });

type EventData = Record<string, unknown>;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

const argsLine = (args: unknown) =>
  args && typeof args === 'object'
    ? Object.entries(args as EventData)
        .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join(', ')
    : '';

function withToolEvent(tools: ToolChip[], data: EventData): ToolChip[] {
  const tool = text(data.tool);
  const status = data.status as ToolStatus;
  if (status === 'calling') return [...tools, { tool, status, detail: argsLine(data.args) }];
  // A tool may run twice in a turn: the result belongs to its latest call still running.
  let index = tools.length - 1;
  while (index >= 0 && !(tools[index]!.tool === tool && tools[index]!.status === 'calling')) index -= 1;
  const finished: ToolChip = { tool, status, detail: text(status === 'error' ? data.error : data.summary) };
  if (index < 0) return [...tools, finished];
  return tools.map((chip, i) => (i === index ? finished : chip));
}

export function applyEvent(turn: Turn, { event, data: raw }: StreamEvent): Turn {
  const data = (raw && typeof raw === 'object' ? raw : {}) as EventData;
  switch (event) {
    case 'metadata':
      return {
        ...turn,
        conversationId: text(data.conversation_id) || turn.conversationId,
        metadata: { format: (data.format as string | null) ?? null, archetype: (data.archetype as string | null) ?? null },
      };
    case 'thinking':
      return { ...turn, thinking: [...turn.thinking, text(data.content)] };
    case 'tool_call':
      return { ...turn, tools: withToolEvent(turn.tools, data) };
    case 'content':
      return { ...turn, text: turn.text + text(data.text) };
    case 'state':
      return { ...turn, state: data as unknown as CoachState };
    case 'done':
      return { ...turn, finished: true };
    case 'error':
      return { ...turn, finished: true, error: text(data.message) || 'the coach could not answer' };
    default:
      return turn;
  }
}
