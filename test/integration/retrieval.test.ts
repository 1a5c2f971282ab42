/**
 * Documents and retrieval on the embedded MongoDB server: ingest → chunks → per-owner index (cached,
 * snapshotted, caught up) → BM25 or hybrid search. Each test uses its own owners, so none depends on
 * another's writes.
 */
import { expect } from 'chai';
import mongoose from 'mongoose';
import { DocumentParseError } from '../../actors/documents/parse.js';
import type { Embedder } from '../../actors/documents/embeddings.js';
import { ingestDocument } from '../../actors/documents/ingest.js';
import { OwnerIndexes } from '../../actors/documents/owner-index.js';
import { Retriever } from '../../actors/documents/retriever.js';
import { documentChunkModels, readCatalogue, removeDocumentChunks, storeChunks } from '../../models/document-chunk.js';
import { loadSearchIndexSnapshot, MAX_PART_CHARS, saveSearchIndexSnapshot, searchIndexModels } from '../../models/search-index.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';

const BROOKS = `# Jalen Brooks

Jalen Brooks is a 6'8 wing who played three seasons at Ohio Valley. He weighs 215 pounds and has a seven-foot wingspan.

## Strengths

Brooks is a reliable catch-and-shoot threat, hitting 41 percent from three on high volume. He guards four positions and rotates early on help defense.

## Weaknesses

His handle is loose under pressure and he commits turnovers against aggressive traps. He rarely gets to the free throw line.
`;

const OKAFOR = `MARCUS OKAFOR

Marcus Okafor is a quarterback from Lakeshore State. He threw for 3,412 passing yards last season.

Accuracy

His completion rate of 68 percent led the conference, and he protects the football.
`;

const LINDQVIST = `# Tessa Lindqvist

Tessa Lindqvist is a goalkeeper. Her distribution is excellent. She once saved a penalty from Brooks, a striker from the rival club.
`;

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Concepts a test embedder recognises: a text's vector counts its words for each. */
const CONCEPTS = [/shoot|sniper|three|deep|arc/gi, /conditioning|drills|preseason|coach/gi, /defen|guard|steal/gi];

const conceptEmbedder: Embedder = {
  name: 'test-concepts',
  async embed(texts) {
    return texts.map((text) => CONCEPTS.map((concept) => text.match(concept)?.length ?? 0));
  },
};

const brokenEmbedder: Embedder = {
  name: 'test-broken',
  async embed() {
    throw new Error('model offline');
  },
};

describe('document retrieval (embedded MongoDB)', function () {
  this.timeout(60_000);
  let mongo: EmbeddedMongo;
  let connection: mongoose.Connection;

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    connection = await mongoose.createConnection(mongo.uri, { dbName: 'retrieval' }).asPromise();
  });

  after(async function () {
    await connection?.close();
    await mongo?.stop();
  });

  async function ingest(ownerId: string, documentId: string, name: string, text: string, embedder: Embedder | null = null) {
    return ingestDocument(connection, { ownerId, documentId, name, bytes: utf8(text) }, { embedder });
  }

  async function seedScouting(ownerId: string, prefix: string) {
    await ingest(ownerId, `${prefix}-brooks`, 'brooks.md', BROOKS);
    await ingest(ownerId, `${prefix}-okafor`, 'okafor.txt', OKAFOR);
  }

  const ids = (hits: Array<{ chunk_id: string }>) => hits.map((hit) => hit.chunk_id);

  it('finds the passage a query asks about first', async function () {
    await seedScouting('owner-find', 'find');
    const retriever = new Retriever(connection);
    const found = await retriever.search('owner-find', ['Brooks turnovers under pressure', 'Okafor completion rate', 'Jalen Brooks 215 pounds']);
    expect(found.mode).to.equal('bm25');
    expect(found.degraded).to.equal(undefined);
    expect(found.documents).to.equal(2);
    const [weakness, accuracy, physical] = found.results;
    expect(weakness!.query).to.equal('Brooks turnovers under pressure');
    expect(weakness!.hits[0]).to.include({ doc_id: 'find-brooks', document_name: 'brooks.md', heading: 'Jalen Brooks > Weaknesses' });
    expect(weakness!.hits[0]!.queries).to.deep.equal(['Brooks turnovers under pressure']);
    expect(weakness!.hits[0]!.score).to.be.greaterThan(0);
    expect(accuracy!.hits[0]).to.include({ doc_id: 'find-okafor', heading: 'Accuracy' });
    expect(physical!.hits[0]).to.include({ chunk_id: 'find-brooks#0', heading: 'Jalen Brooks' });
    // Measurements are terms of their own, whichever apostrophe the source used; stop words match nothing.
    const measured = await retriever.search('owner-find', ['6’8', '3412', 'the and of']);
    expect(ids(measured.results[0]!.hits)).to.deep.equal(['find-brooks#0']);
    expect(measured.results[1]!.hits[0]).to.include({ doc_id: 'find-okafor' });
    expect(measured.results[2]!.hits).to.deep.equal([]);
    const limited = await retriever.search('owner-find', ['Brooks'], { perQuery: 1 });
    expect(limited.results[0]!.hits).to.have.length(1);
  });

  it('never shows one owner another owner’s documents', async function () {
    await seedScouting('owner-a', 'a');
    await ingest('owner-b', 'b-lindqvist', 'lindqvist.md', LINDQVIST);
    const retriever = new Retriever(connection);
    const forB = await retriever.search('owner-b', ['Jalen Brooks wingspan', 'Okafor passing yards', 'Brooks']);
    const docs = forB.results.flatMap((result) => result.hits.map((hit) => hit.doc_id));
    expect(docs).to.include('b-lindqvist');
    expect(docs.every((doc) => doc === 'b-lindqvist')).to.equal(true);
    expect(forB.documents).to.equal(1);
    const forA = await retriever.search('owner-a', ['Lindqvist goalkeeper']);
    expect(forA.results[0]!.hits).to.deep.equal([]);
    expect(await retriever.search('nobody', ['Brooks'])).to.deep.include({ documents: 0, chunks: 0, mode: 'bm25' });
  });

  it('replaces a re-stored document instead of duplicating it', async function () {
    const first = await ingest('owner-again', 'again-brooks', 'brooks.md', BROOKS);
    const retriever = new Retriever(connection);
    const before = await retriever.search('owner-again', ['Brooks']);
    await ingest('owner-again', 'again-brooks', 'brooks.md', BROOKS);
    const { chunks } = documentChunkModels(connection);
    expect(await chunks.countDocuments({ ownerId: 'owner-again', documentId: 'again-brooks' })).to.equal(first.chunkCount);
    const after = await retriever.search('owner-again', ['Brooks']);
    expect(ids(after.results[0]!.hits)).to.deep.equal(ids(before.results[0]!.hits));
    expect(after.chunks).to.equal(first.chunkCount);

    // A shorter version leaves none of the old chunks behind, in the store or in the cached index.
    await ingest('owner-again', 'again-brooks', 'brooks.md', '# Jalen Brooks\n\nNow a short note about Brooks.');
    expect(await chunks.countDocuments({ ownerId: 'owner-again', documentId: 'again-brooks' })).to.equal(1);
    const shorter = await retriever.search('owner-again', ['Brooks turnovers']);
    expect(ids(shorter.results[0]!.hits)).to.deep.equal(['again-brooks#0']);
    expect(shorter.results[0]!.hits[0]!.text).to.equal('Now a short note about Brooks.');
    const catalogue = await readCatalogue(connection, 'owner-again');
    expect([...catalogue.documents.keys()]).to.deep.equal(['again-brooks']);
    expect(catalogue.version).to.equal(3);
  });

  it('drops a removed document from results', async function () {
    await seedScouting('owner-remove', 'remove');
    const retriever = new Retriever(connection);
    const before = await retriever.search('owner-remove', ['Okafor completion rate']);
    expect(before.results[0]!.hits.map((hit) => hit.doc_id)).to.include('remove-okafor');
    const removed = await removeDocumentChunks(connection, 'owner-remove', 'remove-okafor');
    expect(removed.removed).to.be.greaterThan(0);
    const after = await retriever.search('owner-remove', ['Okafor completion rate', 'Brooks']);
    expect(after.results[0]!.hits).to.deep.equal([]);
    expect(after.results[1]!.hits.length).to.be.greaterThan(0);
    expect(after.documents).to.equal(1);
    expect(await documentChunkModels(connection).chunks.countDocuments({ ownerId: 'owner-remove', documentId: 'remove-okafor' })).to.equal(0);
  });

  it('lets a new process start from the saved snapshot and catch up from there', async function () {
    await seedScouting('owner-snap', 'snap');
    const queries = ['Brooks turnovers under pressure', 'Okafor completion rate', 'wingspan'];
    const first = new OwnerIndexes(connection);
    const expected = await new Retriever(connection, { indexes: first }).search('owner-snap', queries);
    expect(await first.persist('owner-snap')).to.equal(true);
    expect(await first.persist('owner-snap')).to.equal(false);

    // Changed behind the catalogue's back: only a process that rebuilt from the chunks would see it.
    await documentChunkModels(connection).chunks.updateOne({ _id: 'snap-brooks#0', ownerId: 'owner-snap' }, { $set: { text: 'rewritten' } });

    const second = new OwnerIndexes(connection);
    const restarted = await new Retriever(connection, { indexes: second }).search('owner-snap', queries);
    expect(restarted).to.deep.equal(expected);
    const wingspan = restarted.results[2]!.hits.find((hit) => hit.chunk_id === 'snap-brooks#0');
    expect(wingspan?.text).to.include('seven-foot wingspan');

    await ingest('owner-snap', 'snap-lindqvist', 'lindqvist.md', LINDQVIST);
    const caughtUp = await new Retriever(connection, { indexes: second }).search('owner-snap', ['Lindqvist goalkeeper']);
    expect(caughtUp.results[0]!.hits[0]).to.include({ doc_id: 'snap-lindqvist' });
    expect(caughtUp.documents).to.equal(3);
    expect((await second.current('owner-snap')).version).to.equal((await readCatalogue(connection, 'owner-snap')).version);
  });

  it('builds an owner’s index once under concurrent use, and saves one snapshot when two processes race', async function () {
    await seedScouting('owner-race', 'race');
    const indexes = new OwnerIndexes(connection);
    const [one, two] = await Promise.all([indexes.current('owner-race'), indexes.current('owner-race')]);
    expect(one.index).to.equal(two.index);
    expect(one.index.documentCount).to.equal((await documentChunkModels(connection).chunks.countDocuments({ ownerId: 'owner-race' })));

    const saved = await Promise.all([new OwnerIndexes(connection).persist('owner-race'), new OwnerIndexes(connection).persist('owner-race')]);
    expect(saved.filter(Boolean)).to.have.length(1);
    const pointer = await searchIndexModels(connection).snapshots.findOne({ _id: 'owner-race' }).lean();
    expect(await searchIndexModels(connection).parts.countDocuments({ ownerId: 'owner-race' })).to.equal(pointer!.parts);
  });

  it('forgets the least recently used owner beyond its capacity, and rebuilds it on use', async function () {
    await ingest('owner-lru-1', 'lru-1', 'brooks.md', BROOKS);
    await ingest('owner-lru-2', 'lru-2', 'okafor.txt', OKAFOR);
    const indexes = new OwnerIndexes(connection, 1);
    const first = await indexes.current('owner-lru-1');
    await indexes.current('owner-lru-2');
    const again = await indexes.current('owner-lru-1');
    expect(again.index).to.not.equal(first.index);
    expect(again.index.documentCount).to.equal(first.index.documentCount);
    expect(await indexes.current('owner-lru-1')).to.have.property('index', again.index);
  });

  it('keeps one current snapshot: only a newer one replaces it, and stale parts are deleted', async function () {
    const { parts } = searchIndexModels(connection);
    const big = JSON.stringify({ filler: 'x'.repeat(MAX_PART_CHARS * 2 + 10) });
    const covered = [{ documentId: 'd1', revision: 'r1', chunks: 3 }];
    expect(await saveSearchIndexSnapshot(connection, 'owner-parts', { version: 2, documents: covered, json: big })).to.equal(true);
    expect(await parts.countDocuments({ ownerId: 'owner-parts' })).to.equal(3);
    expect(await loadSearchIndexSnapshot(connection, 'owner-parts')).to.deep.equal({ version: 2, documents: covered, json: big });

    expect(await saveSearchIndexSnapshot(connection, 'owner-parts', { version: 1, documents: [], json: '{"old":1}' })).to.equal(false);
    expect(await saveSearchIndexSnapshot(connection, 'owner-parts', { version: 2, documents: [], json: '{"same":1}' })).to.equal(false);
    expect(await parts.countDocuments({ ownerId: 'owner-parts' })).to.equal(3);

    expect(await saveSearchIndexSnapshot(connection, 'owner-parts', { version: 3, documents: [], json: '{"new":1}' })).to.equal(true);
    expect(await parts.countDocuments({ ownerId: 'owner-parts' })).to.equal(1);
    expect((await loadSearchIndexSnapshot(connection, 'owner-parts'))?.json).to.equal('{"new":1}');
  });

  describe('hybrid search', function () {
    // For "perimeter shooting", BM25 ranks x first (both words) and y second (one word); by meaning,
    // y and z are about shooting and x about conditioning. Fused, y wins: 1/62 + 1/61 beats 1/61 + 1/63.
    before(async function () {
      await ingest('owner-hybrid', 'h-x', 'x.txt', 'Perimeter shooting drills were cancelled in the preseason, so coaches focused on conditioning.', conceptEmbedder);
      await ingest('owner-hybrid', 'h-y', 'y.txt', 'Brooks is a lethal catch-and-shoot threat from three, shooting 41 percent.', conceptEmbedder);
      await ingest('owner-hybrid', 'h-z', 'z.txt', 'A sniper from deep, he lives behind the arc.', conceptEmbedder);
    });

    it('keyword search alone ranks by the words', async function () {
      const found = await new Retriever(connection).search('owner-hybrid', ['perimeter shooting']);
      expect(ids(found.results[0]!.hits)).to.deep.equal(['h-x#0', 'h-y#0']);
    });

    it('fuses keyword and embedding rankings by reciprocal rank', async function () {
      const found = await new Retriever(connection, { embedder: conceptEmbedder }).search('owner-hybrid', ['perimeter shooting']);
      expect(found.mode).to.equal('hybrid');
      expect(found.degraded).to.equal(undefined);
      const hits = found.results[0]!.hits;
      expect(ids(hits)).to.deep.equal(['h-y#0', 'h-x#0', 'h-z#0']);
      expect(hits[0]!.score).to.be.closeTo(1 / 61 + 1 / 62, 1e-12);
      expect(hits[1]!.score).to.be.closeTo(1 / 61 + 1 / 63, 1e-12);
      expect(hits[2]!.score).to.be.closeTo(1 / 62, 1e-12);
    });

    it('falls back to keyword search, saying why, when the embedder fails', async function () {
      const found = await new Retriever(connection, { embedder: brokenEmbedder }).search('owner-hybrid', ['perimeter shooting']);
      expect(found.mode).to.equal('bm25');
      expect(found.degraded).to.match(/Semantic search failed \(test-broken: model offline\).*keyword search only/);
      expect(ids(found.results[0]!.hits)).to.deep.equal(['h-x#0', 'h-y#0']);
    });

    it('falls back to keyword search, saying why, when the documents have no embeddings', async function () {
      await seedScouting('owner-plain', 'plain');
      const found = await new Retriever(connection, { embedder: conceptEmbedder }).search('owner-plain', ['Brooks defense']);
      expect(found.mode).to.equal('bm25');
      expect(found.degraded).to.match(/no embeddings/);
      expect(found.results[0]!.hits[0]).to.include({ doc_id: 'plain-brooks' });
    });

    it('stores a document without embeddings when the embedder fails during ingest', async function () {
      const done = await ingest('owner-unembedded', 'u-brooks', 'brooks.md', BROOKS, brokenEmbedder);
      expect(done).to.include({ format: 'markdown', embedded: false, embeddingError: 'test-broken: model offline' });
      const stored = await documentChunkModels(connection).chunks.find({ ownerId: 'owner-unembedded' }).lean();
      expect(stored).to.have.length(done.chunkCount);
      expect(stored.every((chunk) => chunk.embedding === undefined)).to.equal(true);
      const found = await new Retriever(connection).search('owner-unembedded', ['Brooks']);
      expect(found.results[0]!.hits.length).to.be.greaterThan(0);
    });
  });

  it('refuses an unreadable file before writing anything', async function () {
    let failure: unknown;
    try {
      await ingestDocument(connection, { ownerId: 'owner-bad', documentId: 'bad', name: 'photo.png', contentType: 'image/png', bytes: new Uint8Array([137, 80, 78, 71]) });
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(DocumentParseError);
    expect((await readCatalogue(connection, 'owner-bad')).version).to.equal(0);
    expect(await documentChunkModels(connection).chunks.countDocuments({ ownerId: 'owner-bad' })).to.equal(0);
  });

  it('refuses embeddings that do not match the chunks', async function () {
    let failure: unknown;
    try {
      await storeChunks(connection, 'owner-mismatch', 'm', 'm.txt', [{ index: 0, heading: null, text: 'one', textHash: 'h' }], []);
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(Error);
  });
});
