/** Your scouting library: the upload form and the documents your runs search (GET /documents). */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { formatDate, listDocuments, type DocumentRow } from './scouting-api.js';
import { UploadForm } from './upload-form.js';
import { ScrollBox } from '../../components/scroll-box.js';

const STATUS_CLASS: Record<string, string> = { indexed: 'ok', failed: 'error' };

function describe(doc: DocumentRow): string {
  if (doc.status === 'failed') return doc.reason ?? 'could not be indexed';
  if (doc.status !== 'indexed') return '';
  return `${doc.format ?? 'document'}, ${doc.chunk_count} ${doc.chunk_count === 1 ? 'chunk' : 'chunks'}${doc.pages ? `, ${doc.pages} ${doc.pages === 1 ? 'page' : 'pages'}` : ''}`;
}

export function DocumentsPanel() {
  const documents = useAsync((signal) => listDocuments(signal), []);
  const [error, setError] = useState<unknown>(undefined);

  const remove = async (doc: DocumentRow) => {
    if (!confirm(`Remove ${doc.name ?? doc.document_id} from your scouting documents?`)) return;
    setError(undefined);
    try {
      await api(`/documents/${encodeURIComponent(doc.document_id)}`, { method: 'DELETE' });
      documents.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  const rows = documents.data ?? [];
  return (
    <section aria-labelledby="documents-title">
      <h2 id="documents-title">Documents</h2>
      <p class="muted">Runs search only the documents you upload here.</p>
      <UploadForm onIndexed={documents.reload} />
      <h3>Your documents</h3>
      <ErrorNote error={error ?? documents.error} />
      {rows.length ? (
        <ScrollBox label="Your documents">
          <table aria-label="Your documents" data-testid="documents-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Uploaded</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((doc) => (
                <tr key={doc.document_id} data-testid="document-row" data-status={doc.status}>
                  <td class="document-name">{doc.name ?? doc.document_id}</td>
                  <td>
                    <span class={STATUS_CLASS[doc.status]}>{doc.status}</span>
                    <span class="document-detail">{describe(doc)}</span>
                  </td>
                  <td>{formatDate(doc.created_at)}</td>
                  <td>
                    <button type="button" class="secondary small" aria-label={`Remove ${doc.name ?? doc.document_id}`} onClick={() => remove(doc)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      ) : documents.loading ? (
        <p role="status">Loading your documents…</p>
      ) : (
        <p class="muted">No documents yet: upload some above.</p>
      )}
    </section>
  );
}
