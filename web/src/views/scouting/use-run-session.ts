/**
 * The run the scouting view is looking at, and its live stream. Starting a run and answering a gate
 * are both SSE streams (POST /scouting/runs, POST /scouting/runs/:id/resume) that end at the next gate
 * or at the run's end; the run's `run` event carries its whole view, so the gates render from that.
 * The session lives in the view (not the run page), so a stream keeps going while the user looks at
 * another screen of the view, and a run just started is shown without reading it again.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../../api.js';
import { navigate } from '../../route.js';
import { openEventStream, type EventStreamHandle, type StreamEvent, type StreamStatus } from '../../sse.js';
import { getRun, runPath, type Coverage, type ResumePayload, type RunView } from './scouting-api.js';

export interface ProgressLine {
  key: number;
  step: string;
  message: string;
}

export interface RunSession {
  runId?: string;
  view?: RunView;
  /** Progress said by this browser's streams (a run opened later shows only its view). */
  progress: ProgressLine[];
  /** Streamed before the turn's `run` event brings it in the view. */
  coverage?: Coverage;
  warnings: string[];
  streamStatus?: StreamStatus;
  working: boolean;
  loading: boolean;
  error?: unknown;
}

export interface RunActions {
  start(request: string, queryHints: string[]): void;
  resume(payload: ResumePayload): void;
  /** Shows the run `runId`: kept as is when it is the session's run, else read from the API. */
  open(runId: string): void;
  reload(): void;
}

const EMPTY: RunSession = { progress: [], warnings: [], working: false, loading: false };

/** The `error` event's data (`{code, message}`) as an error people can read. */
function streamFailure(data: unknown): ApiFailure {
  const body = (data ?? {}) as { code?: string; message?: string };
  return new ApiFailure(0, body.code ?? 'stream_error', body.message ?? 'the run stopped with an error');
}

export function useRunSession(): [RunSession, RunActions] {
  const [session, setSession] = useState<RunSession>(EMPTY);
  const stream = useRef<EventStreamHandle | undefined>(undefined);
  /** The current stream's number: events of an older stream are ignored. */
  const streamToken = useRef(0);
  const currentRun = useRef<string | undefined>(undefined);
  const lineKey = useRef(0);
  const loadAbort = useRef<AbortController | undefined>(undefined);

  const closeStream = () => {
    streamToken.current += 1;
    stream.current?.close();
    stream.current = undefined;
    loadAbort.current?.abort();
  };
  useEffect(() => closeStream, []);

  const load = useCallback((runId: string) => {
    loadAbort.current?.abort();
    const abort = new AbortController();
    loadAbort.current = abort;
    setSession((s) => ({ ...s, loading: true }));
    getRun(runId, abort.signal).then(
      (view) => {
        if (abort.signal.aborted || currentRun.current !== runId) return;
        setSession((s) => ({ ...s, view, loading: false }));
      },
      (error: unknown) => {
        if (abort.signal.aborted || currentRun.current !== runId) return;
        setSession((s) => ({ ...s, error, loading: false }));
      },
    );
  }, []);

  /** Follows one turn's stream; events of a stream that is no longer current are ignored. */
  const follow = useCallback(
    (path: string, body: unknown, onRunId?: (runId: string) => void) => {
      const token = ++streamToken.current;
      const onEvent = (event: StreamEvent) => {
        if (streamToken.current !== token) return;
        const data = (event.data ?? {}) as Record<string, unknown>;
        switch (event.event) {
          case 'metadata':
            if (typeof data.run_id === 'string') onRunId?.(data.run_id);
            break;
          case 'progress':
            setSession((s) => ({ ...s, progress: [...s.progress, { key: ++lineKey.current, step: String(data.step ?? ''), message: String(data.message ?? '') }] }));
            break;
          case 'coverage_report':
            setSession((s) => ({ ...s, coverage: data as unknown as Coverage }));
            break;
          case 'warning':
            setSession((s) => ({ ...s, warnings: s.warnings.includes(String(data.message)) ? s.warnings : [...s.warnings, String(data.message)] }));
            break;
          case 'run':
            setSession((s) => ({ ...s, view: data as unknown as RunView }));
            break;
          case 'error':
            setSession((s) => ({ ...s, error: streamFailure(data) }));
            break;
        }
      };
      const handle: EventStreamHandle = openEventStream({
        path,
        body,
        onEvent,
        onStatus: (status) => {
          if (streamToken.current === token) setSession((s) => ({ ...s, streamStatus: status }));
        },
      });
      stream.current = handle;
      handle.finished.then(
        () => {
          if (streamToken.current === token) setSession((s) => ({ ...s, working: false }));
        },
        (error: unknown) => {
          if (streamToken.current !== token) return;
          setSession((s) => ({ ...s, working: false, error }));
          // A refused answer (wrong gate, over a limit) changed nothing: show where the run stands.
          if (currentRun.current) load(currentRun.current);
        },
      );
    },
    [load],
  );

  const start = useCallback(
    (request: string, queryHints: string[]) => {
      closeStream();
      currentRun.current = undefined;
      setSession({ ...EMPTY, working: true });
      follow('/scouting/runs', { request, ...(queryHints.length ? { query_hints: queryHints } : {}) }, (runId) => {
        currentRun.current = runId;
        setSession((s) => ({ ...s, runId }));
        navigate('scouting', runId);
      });
    },
    [follow],
  );

  const resume = useCallback(
    (payload: ResumePayload) => {
      const runId = currentRun.current;
      if (!runId) return;
      closeStream();
      setSession((s) => ({ ...s, working: true, error: undefined, coverage: payload.type === 'player_approval' && payload.action !== 'edit_content' ? s.coverage : undefined }));
      follow(`${runPath(runId)}/resume`, payload);
    },
    [follow],
  );

  const open = useCallback(
    (runId: string) => {
      if (currentRun.current === runId) return;
      closeStream();
      currentRun.current = runId;
      setSession({ ...EMPTY, runId });
      load(runId);
    },
    [load],
  );

  const reload = useCallback(() => {
    if (!currentRun.current) return;
    setSession((s) => ({ ...s, error: undefined }));
    load(currentRun.current);
  }, [load]);

  return [session, { start, resume, open, reload }];
}
