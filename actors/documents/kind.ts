/**
 * Documents as actors: one per uploaded content (per owner), so ingesting a file is one turn of a
 * batch job: parse, chunk, (embed,) store the chunks, which makes them searchable at once by any
 * worker. A file that cannot be read is kept as `failed` with the reason; the same content uploaded
 * again is known and not indexed twice. The owner's search index is saved to MongoDB by a per-owner
 * `search-index` actor, so saves of one owner's index never race and come at most every few seconds.
 */
import { actorStates } from '../../models/actor-record.js';
import { perConnection } from '../../models/connection.js';
import { removeDocumentChunks } from '../../models/document-chunk.js';
import { RequestError, type ActorKind, type ServiceKind, type TurnContext } from '../runtime/contract.js';
import { batches, DOCUMENT_KIND, DOCUMENT_LIST_KIND, feeds, http, listMessages, messages, reads, tools, type IngestPayload } from './contract.js';
import { DocumentParseError } from './parse.js';
import { ingestDocument } from './ingest.js';
import { OwnerIndexes } from './owner-index.js';
import { documentView, initialDocument, type DocumentState } from './state.js';
import { z } from 'zod';

export const SEARCH_INDEX_KIND = 'search-index';
/** At most one save of an owner's index per this long (a batch of uploads saves a few times, not once per file). */
const PERSIST_EVERY_MS = 5_000;
const LIST_LIMIT = 500;

/** The worker's in-memory search indexes, shared by search and by saving them. */
export const ownerIndexesFor = perConnection((mongo) => new OwnerIndexes(mongo));

const indexOf = (ownerId: string) => ({ kind: SEARCH_INDEX_KIND, id: ownerId });

function statusEvent(state: DocumentState, ctx: TurnContext) {
  const view = documentView(state) ?? { document_id: state.document_id, status: state.status };
  ctx.publish('status', view);
  ctx.reply(view);
}

async function ingest(state: DocumentState, payload: IngestPayload, ctx: TurnContext): Promise<DocumentState> {
  const uploads = state.uploads + 1;
  if (state.status === 'indexed' && state.sha256 === payload.sha256) {
    // The same content again: nothing to index; the answer says so.
    const again = { ...state, uploads };
    ctx.reply({ ...documentView(again), duplicate: true });
    return again;
  }
  const started = performance.now();
  const at = new Date().toISOString();
  const base: DocumentState = {
    ...initialDocument(state.document_id),
    uploads,
    name: payload.name,
    content_type: payload.content_type ?? null,
    sha256: payload.sha256,
    size: payload.size,
    created_at: state.created_at ?? at,
  };
  try {
    const done = await ingestDocument(
      ctx.resources.mongo,
      { ownerId: ctx.ownerId, documentId: state.document_id, name: payload.name, contentType: payload.content_type, bytes: new Uint8Array(Buffer.from(payload.data_base64, 'base64')) },
      { embedder: ctx.resources.embedder, signal: ctx.signal, onProgress: (stage, detail) => ctx.emit('progress', { document_id: state.document_id, stage, ...(detail === undefined ? {} : { detail }) }) },
    );
    const next: DocumentState = {
      ...base,
      status: 'indexed',
      format: done.format,
      pages: done.pages ?? null,
      chunk_count: done.chunkCount,
      words: done.words,
      embedded: done.embedded,
      embedding_error: done.embeddingError ?? null,
      indexed_at: new Date().toISOString(),
      ingest_ms: Math.round((performance.now() - started) * 10) / 10,
    };
    ctx.send(indexOf(ctx.ownerId), 'persist', {});
    statusEvent(next, ctx);
    return next;
  } catch (error) {
    if (!(error instanceof DocumentParseError)) throw error;
    const failed: DocumentState = { ...base, status: 'failed', reason: error.reason };
    ctx.publish('status', documentView(failed));
    ctx.fail(new RequestError('bad_request', `${payload.name}: ${error.reason}`, { document_id: state.document_id, status: 'failed' }));
    return failed;
  }
}

async function remove(state: DocumentState, ctx: TurnContext): Promise<DocumentState> {
  if (state.created_at === null || state.status === 'deleted') throw new RequestError('not_found', `document ${state.document_id} not found`);
  await removeDocumentChunks(ctx.resources.mongo, ctx.ownerId, state.document_id);
  ctx.send(indexOf(ctx.ownerId), 'persist', {});
  const next: DocumentState = { ...initialDocument(state.document_id), status: 'deleted', name: state.name, created_at: state.created_at };
  ctx.publish('status', { document_id: state.document_id, status: 'deleted' });
  ctx.reply({ document_id: state.document_id, deleted: true });
  return next;
}

export const documentKind: ActorKind<DocumentState> = {
  kind: DOCUMENT_KIND,
  stateful: true,
  description: 'Scouting documents: each upload is parsed, chunked and indexed for its owner\'s search.',
  messages,
  http,
  reads,
  feeds,
  batches,
  tools,
  // Uploads are bulk work: generous, but bounded per user.
  limits: { rate: { points: 600, durationSeconds: 3600 }, concurrent: 8 },
  turnTimeoutMs: 5 * 60 * 1000,
  initialState: (ref) => initialDocument(ref.id),
  async handle(state, message, ctx) {
    switch (message.type) {
      case 'ingest':
        return ingest(state, message.payload as IngestPayload, ctx);
      case 'status':
        // Asked after its upload, the status message waits behind the ingest: a document without one does not exist.
        if (state.created_at === null || state.status === 'deleted') throw new RequestError('not_found', `document ${state.document_id} not found`);
        statusEvent(state, ctx);
        return state;
      case 'delete':
        return remove(state, ctx);
      default:
        throw new RequestError('bad_request', `unknown message ${message.type}`);
    }
  },
};

interface SearchIndexState {
  saved_at: number | null;
  /** A later save is already scheduled: more requests wait for it. */
  scheduled: boolean;
}

/** Saves one owner's search index to MongoDB, at most every PERSIST_EVERY_MS. */
export const searchIndexKind: ActorKind<SearchIndexState> = {
  kind: SEARCH_INDEX_KIND,
  stateful: true,
  description: 'Keeps each owner\'s document search index saved in MongoDB (any worker loads it, and catches up from the chunks).',
  messages: { persist: z.object({}).strict(), persist_now: z.object({}).strict() },
  initialState: () => ({ saved_at: null, scheduled: false }),
  async handle(state, message, ctx) {
    const now = Date.now();
    if (message.type === 'persist' && state.saved_at !== null && now - state.saved_at < PERSIST_EVERY_MS) {
      if (!state.scheduled) ctx.schedule(PERSIST_EVERY_MS - (now - state.saved_at), 'persist_now', {});
      ctx.reply({ saved: false, scheduled: true });
      return { ...state, scheduled: true };
    }
    const saved = await ownerIndexesFor(ctx.resources.mongo).persist(ctx.ownerId);
    ctx.reply({ saved });
    return { saved_at: Date.now(), scheduled: false };
  },
};

/** GET /documents: the caller's documents, newest first. */
export const documentListKind: ServiceKind = {
  kind: DOCUMENT_LIST_KIND,
  stateful: false,
  description: 'Lists your scouting documents.',
  messages: listMessages,
  concurrency: 4,
  async handle(message, ctx) {
    const states = await actorStates<DocumentState>(ctx.resources.mongo, DOCUMENT_KIND, { ownerId: message.ownerId, 'state.status': { $ne: 'deleted' } }, LIST_LIMIT);
    return { documents: states.map((s) => documentView(s)!) };
  },
};
