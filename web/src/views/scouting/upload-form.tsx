/**
 * Uploading documents: the files go in one multipart POST /documents, which answers with each
 * document's id and the batch job that indexes them. The batch's SSE feed says when each file is
 * finished; its results say how (indexed, a duplicate of content already indexed, or failed and why).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { StreamStatusBadge } from '../../components/stream-status.js';
import { openEventStream, type EventStreamHandle, type StreamStatus } from '../../sse.js';
import { batchResults, uploadDocuments, type BatchProgress, type BatchResult } from './scouting-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

type FileStatus = 'sending' | 'queued' | 'indexed' | 'duplicate' | 'failed';

interface FileRow {
  key: number;
  name: string;
  documentId?: string;
  status: FileStatus;
  detail: string;
}

const STATUS_CLASS: Partial<Record<FileStatus, string>> = { indexed: 'ok', duplicate: 'ok', failed: 'error' };

/** A finished document's row, from its batch result. */
function outcome(row: FileRow, result: BatchResult): FileRow {
  if (!result.ok) {
    const message = result.error?.message ?? 'it could not be indexed';
    return { ...row, status: 'failed', detail: message.startsWith(`${row.name}: `) ? message.slice(row.name.length + 2) : message };
  }
  const reply = result.reply;
  if (!reply) return row;
  if (reply.status === 'failed') return { ...row, status: 'failed', detail: reply.reason ?? 'it could not be indexed' };
  const made = `${reply.chunk_count} ${reply.chunk_count === 1 ? 'chunk' : 'chunks'}${reply.pages ? `, ${reply.pages} ${reply.pages === 1 ? 'page' : 'pages'}` : ''}`;
  if (reply.duplicate) return { ...row, status: 'duplicate', detail: `already indexed (${made}); nothing indexed twice` };
  return { ...row, status: 'indexed', detail: `${reply.format ?? 'document'}, ${made}` };
}

export function UploadForm({ onIndexed }: { onIndexed: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [rows, setRows] = useState<FileRow[]>([]);
  const [progress, setProgress] = useState<BatchProgress | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [streamStatus, setStreamStatus] = useState<StreamStatus | undefined>(undefined);
  const stream = useRef<EventStreamHandle | undefined>(undefined);
  useEffect(() => () => stream.current?.close(), []);

  const follow = async (batchId: string, eventsPath: string) => {
    const abort = new AbortController();
    // One results read at a time; a progress event during a read asks for one more after it.
    let reading: Promise<void> | undefined;
    let again = false;
    const readResults = (): Promise<void> => {
      if (reading) {
        again = true;
        return reading;
      }
      reading = batchResults(batchId, abort.signal)
        .then(
          (results) => {
            setRows((current) => {
              // The same content twice in one upload is one document: its results go to its rows in order.
              const byDocument = new Map<string, BatchResult[]>();
              for (const result of results) byDocument.set(result.actorId ?? '', [...(byDocument.get(result.actorId ?? '') ?? []), result]);
              return current.map((row) => {
                const result = row.documentId ? byDocument.get(row.documentId)?.shift() : undefined;
                return result ? outcome(row, result) : row;
              });
            });
          },
          (failure: unknown) => {
            if (!abort.signal.aborted) setError(failure);
          },
        )
        .finally(() => {
          reading = undefined;
          if (again) {
            again = false;
            void readResults();
          }
        });
      return reading;
    };
    const handle = openEventStream({
      path: eventsPath,
      signal: abort.signal,
      onStatus: setStreamStatus,
      onEvent: (event) => {
        if (event.event !== 'progress' && event.event !== 'done') return;
        setProgress(event.data as BatchProgress);
        void readResults();
      },
    });
    stream.current = handle;
    try {
      await handle.finished;
      while (reading) await reading;
      await readResults();
    } finally {
      abort.abort();
    }
  };

  const upload = async (event: Event) => {
    event.preventDefault();
    const files = Array.from(input.current?.files ?? []);
    if (!files.length) {
      setError(new Error('Choose one or more files first.'));
      return;
    }
    stream.current?.close();
    setError(undefined);
    setProgress(undefined);
    setBusy(true);
    setRows(files.map((file, key) => ({ key, name: file.name, status: 'sending', detail: `${Math.ceil(file.size / 1024)} KB` })));
    try {
      const accepted = await uploadDocuments(files);
      setRows(accepted.documents.map((doc, key) => ({ key, name: doc.name, documentId: doc.document_id, status: 'queued', detail: 'waiting to be indexed' })));
      setProgress({ batchId: accepted.batchId, total: accepted.total, done: 0, failed: 0, finished: false });
      (event.target as HTMLFormElement).reset();
      await follow(accepted.batchId, accepted.events);
      onIndexed();
    } catch (failure) {
      setError(failure);
      setRows((current) => current.filter((row) => row.status !== 'sending'));
    } finally {
      setBusy(false);
    }
  };

  const finished = progress ? progress.done + progress.failed : 0;
  return (
    <>
      <form onSubmit={upload} class="upload-form">
        <label for="scouting-files">Documents to upload (Markdown, plain text or PDF; up to 20 files of 20 MB)</label>
        <input ref={input} id="scouting-files" type="file" multiple accept=".md,.markdown,.txt,.text,.pdf,text/markdown,text/plain,application/pdf" disabled={busy} />
        <div>
          <button type="submit" disabled={busy}>
            Upload
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {rows.length ? (
        <div class="upload-progress" data-testid="upload-progress">
          <p class="row">
            <label for="upload-bar" class="inline">
              {progress ? `${finished} of ${progress.total} files processed` : 'Sending the files…'}
            </label>
            <progress id="upload-bar" max={progress?.total ?? rows.length} value={progress ? finished : undefined} />
            <StreamStatusBadge status={busy ? streamStatus : undefined} />
          </p>
          <ScrollBox label="Upload progress per file">
            <table aria-label="Upload progress per file">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Status</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.key} data-testid="upload-row" data-file={row.name} data-status={row.status}>
                    <td>{row.name}</td>
                    <td class={STATUS_CLASS[row.status]}>{row.status}</td>
                    <td>{row.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        </div>
      ) : null}
    </>
  );
}
