/**
 * What the kinds' routes answer, where their contracts say more than "the reply": HttpRouteContract
 * has no output schema, so a route whose message is also an MCP tool's borrows that tool's `output`
 * (the same reply), a few small answers are written here from their handlers, and SSE routes list the
 * events their handlers emit. A route missing here is documented as an undeclared object.
 */
import { z } from 'zod';
import { STREAM_END_EVENTS } from './operation-parts.js';

export type ReplySchema =
  /** The `output` of this MCP tool: the tool sends the same message, so its reply is the same. */
  | { tool: string; component: string }
  | { zod: z.ZodType; component?: string };

export interface RouteAnswer {
  reply?: ReplySchema;
  /** SSE routes: the events, in the order they come. */
  events?: Record<string, string>;
}

const GAME_VIEW: ReplySchema = { tool: 'game_observe', component: 'GameView' };

const GameList = z.object({
  games: z.array(
    z.object({
      gameId: z.string(),
      status: z.enum(['waiting', 'playing', 'over', 'ended']),
      seats: z.array(z.object({ seat: z.number().int(), type: z.enum(['user', 'bot', 'open']), name: z.string(), you: z.boolean() })),
      openSeats: z.number().int(),
      turn: z.number().int(),
      moves: z.number().int(),
      createdAt: z.string(),
    }),
  ),
});

const SCOUTING_GATES = {
  plan_proposal: 'The run waits for plan_approval: `{player_name, sport_guess, plan_steps, query_hints}`.',
  clarification: 'The run waits to be told which player: `{message, request}`.',
  player_preview: 'The run waits for player_approval: `{player_fields, report_summary, report_text, db_payload_preview, edits_left}`.',
};

/** Keyed by `METHOD path` as the contract declares the route. */
export const CONTRACT_ANSWERS: Record<string, RouteAnswer> = {
  'POST /games': { reply: GAME_VIEW },
  'GET /games': { reply: { zod: GameList, component: 'GameList' } },
  'GET /games/:id': { reply: GAME_VIEW },
  'POST /games/:id/join': { reply: GAME_VIEW },
  'POST /games/:id/moves': { reply: GAME_VIEW },
  'POST /games/:id/resign': { reply: GAME_VIEW },
  'POST /games/:id/end': { reply: GAME_VIEW },
  'GET /games/:id/events': {
    events: {
      snapshot: 'Your view now (a GameView); first, unless resuming.',
      update: 'Public: what happened.',
      view: 'Your own view after the change (seated players only).',
      done: 'The game is over; the stream ends.',
      error: STREAM_END_EVENTS.error,
    },
  },
  'GET /formats': { reply: { zod: z.object({ formats: z.array(z.string()).describe('Constructed formats in the data, sorted') }) } },
  'GET /archetypes': { reply: { tool: 'get_format_archetypes', component: 'FormatArchetypes' } },
  'POST /chat': {
    events: {
      metadata: '`{conversation_id, format, archetype}`.',
      thinking: '`{content}`: what the coach is doing.',
      tool_call: '`{status: "calling", tool, args}`, then `{status: "complete", tool, summary}` or `{status: "error", tool, error}`.',
      content: '`{text}`: a chunk of the answer.',
      state: '`{has_deck, format, archetype, current_days, previous_days, current_workflow, suggested_archetypes}`.',
      ...STREAM_END_EVENTS,
    },
  },
  'GET /documents/:id/events': {
    events: {
      snapshot: 'The document now: queued, indexed or failed.',
      status: 'When it is indexed or fails.',
      done: 'It has; the stream ends.',
      error: STREAM_END_EVENTS.error,
    },
  },
  'POST /scouting/runs': {
    events: { metadata: '`{run_id}`.', progress: 'A step of the run.', ...SCOUTING_GATES, run: 'The run\'s view (as GET /scouting/runs/{id}).', ...STREAM_END_EVENTS },
  },
  'POST /scouting/runs/:id/resume': {
    events: {
      progress: 'A step of the run.',
      coverage_report: '`{found, missing, confidence, chunk_count}`.',
      warning: '`{message}`.',
      ...SCOUTING_GATES,
      run: 'The run\'s view (as GET /scouting/runs/{id}).',
      ...STREAM_END_EVENTS,
    },
  },
  'GET /scouting/runs/:id': { reply: { tool: 'scouting_status', component: 'ScoutingRun' } },
  'POST /documents': {
    reply: { zod: z.object({ documents: z.array(z.object({ document_id: z.string(), name: z.string(), status: z.string(), events: z.string() })) }) },
  },
  'POST /scouting/batches': {
    reply: { zod: z.object({ runs: z.array(z.object({ run_id: z.string(), request: z.string(), status: z.string() })) }) },
  },
};

export const answerFor = (method: string, path: string): RouteAnswer => CONTRACT_ANSWERS[`${method.toUpperCase()} ${path}`] ?? {};
