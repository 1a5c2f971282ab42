/**
 * The documents' contract: uploads (POST /documents, multipart or JSON, each file one message of a
 * batch job), the document's status (a read of its state, and its feed as SSE), the list, delete,
 * and the `documents_upload` MCP tool. A document's id comes from its owner and its content's hash,
 * so the same content uploaded again reaches the same actor, which knows it and indexes nothing twice.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { RequestError, type ActorMessage, type BatchRouteContract, type FeedRouteContract, type HttpRouteContract, type StateRouteContract, type ToolContract, type UploadedFile } from '../runtime/contract.js';
import { documentView, type DocumentState } from './state.js';

export const DOCUMENT_KIND = 'document';
export const DOCUMENT_LIST_KIND = 'document-list';

export const MAX_FILE_BYTES = 20 * 1024 * 1024;
export const MAX_FILES = 20;

const DocumentId = z.string().regex(/^doc-[0-9a-f]{40}$/, { error: 'a document id from POST /documents (doc-…)' });
const FileName = z.string().trim().min(1).max(200);
const ContentType = z.string().trim().min(1).max(100);

export const IngestPayload = z
  .object({
    name: FileName,
    content_type: ContentType.optional(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number().int().min(0).max(MAX_FILE_BYTES),
    data_base64: z.string().max(Math.ceil((MAX_FILE_BYTES * 4) / 3) + 4),
  })
  .strict();
export type IngestPayload = z.infer<typeof IngestPayload>;

export const messages = {
  ingest: IngestPayload,
  status: z.object({}).strict(),
  delete: z.object({}).strict(),
};

export const listMessages = { list: z.object({}).strict() };

export const documentIdFor = (ownerId: string, sha256: string) => `doc-${createHash('sha256').update(`${ownerId}\n${sha256}`).digest('hex').slice(0, 40)}`;

/** One file as the message that ingests it. */
export function ingestMessage(ownerId: string, file: { name: string; contentType?: string; bytes: Buffer }): ActorMessage {
  if (file.bytes.length > MAX_FILE_BYTES) throw new RequestError('bad_request', `${file.name} is larger than the limit of 20 MB a file`, { limitBytes: MAX_FILE_BYTES });
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  return {
    actorId: documentIdFor(ownerId, sha256),
    type: 'ingest',
    payload: { name: file.name, ...(file.contentType ? { content_type: file.contentType } : {}), sha256, size: file.bytes.length, data_base64: file.bytes.toString('base64') },
  };
}

/** A file given in JSON: its text, or its bytes in base64. */
const JsonFile = z
  .object({
    name: FileName,
    text: z.string().min(1).optional(),
    base64: z.string().min(1).optional(),
    content_type: ContentType.optional(),
  })
  .strict()
  .refine((f) => (f.text === undefined) !== (f.base64 === undefined), { error: 'give either text or base64' });
type JsonFile = z.infer<typeof JsonFile>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
function bytesOf(file: JsonFile): Buffer {
  if (file.text !== undefined) return Buffer.from(file.text, 'utf8');
  const compact = file.base64!.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw new RequestError('bad_request', `${file.name}: base64 is not valid base64`);
  return Buffer.from(compact, 'base64');
}

/** A text file's type when the client gave none: from its name, else plain text. */
const typeOf = (file: JsonFile) => file.content_type ?? (file.text !== undefined ? (/\.(md|markdown)$/i.test(file.name) ? 'text/markdown' : 'text/plain') : undefined);

const messagesOf = (ownerId: string, files: Array<{ name: string; contentType?: string; bytes: Buffer }>) => files.map((f) => ingestMessage(ownerId, f));

export const batches: BatchRouteContract[] = [
  {
    path: '/documents',
    description:
      'Uploads scouting documents (plain text, Markdown, PDF; up to 20 MB a file) as multipart/form-data files, or JSON {name, text} / {documents: [{name, text | base64, content_type}]}. ' +
      'Answers 202 with each document\'s id; parsing, chunking and indexing run as a batch job (GET /documents/:id, GET /batches/:id).',
    body: { name: FileName.optional(), text: z.string().min(1).optional(), base64: z.string().min(1).optional(), content_type: ContentType.optional(), documents: z.array(JsonFile).max(MAX_FILES).optional() },
    upload: { maxFileBytes: MAX_FILE_BYTES, maxFiles: MAX_FILES },
    toMessages: ({ body, files }, caller) => {
      const fromJson: JsonFile[] = [...((body.documents as JsonFile[] | undefined) ?? [])];
      if (body.name !== undefined || body.text !== undefined || body.base64 !== undefined) {
        const single = JsonFile.safeParse({ name: body.name, text: body.text, base64: body.base64, content_type: body.content_type });
        if (!single.success) throw new RequestError('bad_request', `a document needs a name and either text or base64: ${single.error.issues.map((i) => i.message).join('; ')}`);
        fromJson.push(single.data);
      }
      const uploaded: UploadedFile[] = files;
      const all = [...uploaded.map((f) => ({ name: f.name, contentType: f.contentType === 'application/octet-stream' ? undefined : f.contentType, bytes: f.bytes })), ...fromJson.map((f) => ({ name: f.name, contentType: typeOf(f), bytes: bytesOf(f) }))];
      if (all.length > MAX_FILES) throw new RequestError('bad_request', `at most ${MAX_FILES} documents per upload`);
      return messagesOf(caller.userId, all);
    },
    describe: (sent) => ({
      documents: sent.map((m) => ({ document_id: m.actorId, name: (m.payload as IngestPayload).name, status: `/documents/${m.actorId}`, events: `/documents/${m.actorId}/events` })),
    }),
  },
];

const idParams = { id: DocumentId };

export const http: HttpRouteContract[] = [
  {
    method: 'GET',
    path: '/documents',
    description: 'Your documents, newest first, with their status.',
    toMessage: () => ({ kind: DOCUMENT_LIST_KIND, actorId: 'service', type: 'list', payload: {} }),
  },
  {
    method: 'DELETE',
    path: '/documents/:id',
    description: 'Deletes a document: its chunks leave your search index.',
    params: idParams,
    toMessage: ({ params }) => ({ actorId: params.id as string, type: 'delete', payload: {} }),
  },
];

export const reads: StateRouteContract[] = [
  {
    path: '/documents/:id',
    description: 'A document: queued, indexed (with its chunk count) or failed (with the reason).',
    params: idParams,
    actorId: (params) => params.id as string,
    view: (state) => documentView(state as DocumentState),
  },
];

export const feeds: FeedRouteContract[] = [
  {
    path: '/documents/:id/events',
    description: 'SSE of a document\'s status: a `snapshot`, then `status` when it is indexed or fails; `done` once it has.',
    params: idParams,
    actorId: (params) => params.id as string,
    snapshot: (params) => ({ actorId: params.id as string, type: 'status', payload: {} }),
    finished: (snapshot) => ['indexed', 'failed', 'deleted'].includes((snapshot as { status?: string } | null)?.status ?? ''),
  },
];

export const tools: ToolContract[] = [
  {
    name: 'documents_upload',
    title: 'Upload a scouting document',
    description:
      'Adds a document (plain text, Markdown or PDF) to your scouting library: give `text`, or the file\'s bytes as `base64`. It is parsed, chunked and indexed before the answer, which says how many chunks it made (or why it failed). The same content uploaded twice is indexed once.',
    input: {
      name: FileName.describe('File name, e.g. "delaney-combine.md" (its extension tells the format)'),
      text: z.string().min(1).max(MAX_FILE_BYTES).optional().describe('The document as text (Markdown or plain)'),
      base64: z.string().min(1).max(Math.ceil((MAX_FILE_BYTES * 4) / 3) + 4).optional().describe('The file\'s bytes in base64 (e.g. a PDF)'),
      content_type: ContentType.optional().describe('text/plain, text/markdown or application/pdf'),
    },
    toMessage: (args, caller) => {
      const file = JsonFile.safeParse(args);
      if (!file.success) throw new RequestError('bad_request', `give a name and either text or base64: ${file.error.issues.map((i) => i.message).join('; ')}`);
      return ingestMessage(caller.userId, { name: file.data.name, contentType: typeOf(file.data), bytes: bytesOf(file.data) });
    },
  },
];
