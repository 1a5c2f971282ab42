/**
 * The open conversation: its history and state (GET /conversations/:id), the turns sent from this page
 * (each streamed from POST /chat), and the state the server last reported. A first message without a
 * conversation starts one; its id then becomes the route (#/coach/<id>) without reloading anything.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../../api.js';
import { navigate } from '../../route.js';
import { openEventStream, type StreamStatus } from '../../sse.js';
import { EMPTY_STATE, loadConversation, type CoachState, type HistoryEntry } from './coach-api.js';
import { applyEvent, newTurn, type ChatContext, type Turn } from './chat-turn.js';

export interface Conversation {
  id: string | undefined;
  /** Changes each time another conversation is opened (not when this page's first turn names one). */
  generation: number;
  history: HistoryEntry[];
  turns: Turn[];
  state: CoachState;
  loading: boolean;
  error: unknown;
  streamStatus: StreamStatus | undefined;
  running: boolean;
  send(message: string, context: ChatContext): void;
}

export function useConversation(routeId: string | undefined, onTurnFinished: () => void): Conversation {
  const idRef = useRef<string | undefined>(undefined);
  const stream = useRef<AbortController | undefined>(undefined);
  const [id, setId] = useState<string | undefined>(undefined);
  const [history, setHistory] = useState<HistoryEntry[]>([]);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [state, setState] = useState<CoachState>(EMPTY_STATE);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [streamStatus, setStreamStatus] = useState<StreamStatus | undefined>(undefined);
  const [running, setRunning] = useState(false);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    // The route caught up with a conversation this page started: nothing to load.
    if (routeId === idRef.current) return;
    stream.current?.abort();
    idRef.current = routeId;
    setId(routeId);
    setHistory([]);
    setTurns([]);
    setState(EMPTY_STATE);
    setError(undefined);
    setStreamStatus(undefined);
    setRunning(false);
    setGeneration((n) => n + 1);
    if (routeId === undefined) return;
    const abort = new AbortController();
    setLoading(true);
    loadConversation(routeId, abort.signal).then(
      (detail) => {
        setHistory(detail.messages);
        setState({ ...EMPTY_STATE, ...detail.state });
        setLoading(false);
        setGeneration((n) => n + 1);
      },
      (failure: unknown) => {
        if (abort.signal.aborted) return;
        setError(failure);
        setLoading(false);
      },
    );
    return () => abort.abort();
  }, [routeId]);

  useEffect(() => () => stream.current?.abort(), []);

  const send = (message: string, context: ChatContext) => {
    const abort = new AbortController();
    stream.current = abort;
    let turn = newTurn(message);
    const index = turns.length;
    const show = (next: Turn) => setTurns((all) => [...all.slice(0, index), next]);
    show(turn);
    setRunning(true);
    setError(undefined);
    const handle = openEventStream({
      path: '/chat',
      body: { message, ...(idRef.current ? { conversation_id: idRef.current } : {}), ...context },
      signal: abort.signal,
      onStatus: setStreamStatus,
      onEvent: (event) => {
        turn = applyEvent(turn, event);
        show(turn);
        if (event.event === 'metadata' && turn.metadata) {
          const { format, archetype } = turn.metadata;
          setState((known) => ({ ...known, format, archetype }));
          if (turn.conversationId && turn.conversationId !== idRef.current) {
            idRef.current = turn.conversationId;
            setId(turn.conversationId);
            navigate('coach', turn.conversationId);
          }
        }
        if (event.event === 'state' && turn.state) setState((known) => ({ ...known, ...turn.state }));
      },
    });
    handle.finished
      .catch((failure: unknown) => {
        // A refusal before the stream (empty message, unknown format, limits) answers as JSON.
        turn = { ...turn, finished: true, error: messageOf(failure) };
        show(turn);
      })
      .finally(() => {
        if (abort.signal.aborted) return;
        setRunning(false);
        onTurnFinished();
      });
  };

  return { id, generation, history, turns, state, loading, error, streamStatus, running, send };
}
